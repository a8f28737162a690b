// Proves unaryCall over a real grpc-js server and channel, answering as
// Client.makeUnaryRequest does: the response decoded; the metadata sent
// arriving; a refusal's status, details and trailing metadata kept; a request
// that cannot be serialised, a response that cannot be parsed and an answer
// without a message each reported once as a ServiceError, never thrown; the
// deadline bounding the call; and `done` never called before unaryCall returns.
import { Metadata, sendUnaryData, ServerUnaryCall, ServiceError, status } from '@grpc/grpc-js';
import { InsecurePair, startInsecurePair, stringMethod } from './testing/insecure-server';
import { unaryCall, UnaryMethod } from './unary-call';

const DEFINITION = stringMethod('/test.Echo/Say', {
  requestSerialize: (value) => {
    if (value === 'unserialisable') throw new Error('cannot serialise');
    return Buffer.from(value, 'utf8');
  },
  responseDeserialize: (buffer) => {
    const text = buffer.toString('utf8');
    if (text === 'unparsable') throw new Error('cannot parse');
    return text;
  },
});
const METHOD: UnaryMethod<string, string> = DEFINITION;

function answer(call: ServerUnaryCall<string, string>, callback: sendUnaryData<string>): void {
  const request = call.request;
  if (request === 'refuse') {
    const trailer = new Metadata();
    trailer.set('x-error', '{"code":"REFUSED"}');
    callback({ code: status.FAILED_PRECONDITION, details: 'refused', metadata: trailer });
  } else if (request === 'who') callback(null, String(call.metadata.get('x-request-id')[0]));
  else if (request === 'slow') setTimeout(() => callback(null, 'late'), 500);
  else if (request === 'nothing') {
    // Ends the call OK without a message: what a broken server could send.
    const raw = (call as unknown as { call: { sendStatus(answer: object): void } }).call;
    raw.sendStatus({ code: status.OK, details: 'OK', metadata: null });
  } else callback(null, request);
}

describe('unaryCall', () => {
  let pair: InsecurePair;

  beforeAll(async () => {
    pair = await startInsecurePair({ say: DEFINITION }, { say: answer });
  });

  afterAll(() => pair.close());

  function call(request: string, metadata = new Metadata(), deadlineMs = 5_000) {
    return new Promise<{ error: ServiceError | null; response?: string; calls: number; sync: boolean }>((resolve) => {
      let calls = 0;
      let returned = false;
      let sync = false;
      unaryCall(pair.client.getChannel(), METHOD, request, metadata, Date.now() + deadlineMs, (error, response) => {
        calls += 1;
        sync = !returned;
        // A second call of `done` would change `calls` after this resolves: checked below by waiting.
        setTimeout(() => resolve({ error, response, calls, sync }), 50);
      });
      returned = true;
    });
  }

  it('answers the decoded response', async () => {
    const result = await call('hello');
    expect(result).toMatchObject({ error: null, response: 'hello', calls: 1, sync: false });
  });

  it('sends the metadata given', async () => {
    const metadata = new Metadata();
    metadata.set('x-request-id', 'req-7');
    expect((await call('who', metadata)).response).toBe('req-7');
  });

  it("keeps a refusal's code, details and trailing metadata", async () => {
    const { error, calls } = await call('refuse');
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ code: status.FAILED_PRECONDITION, details: 'refused' });
    expect(error?.message).toBe('9 FAILED_PRECONDITION: refused');
    expect(error?.metadata.get('x-error')).toEqual(['{"code":"REFUSED"}']);
    expect(calls).toBe(1);
  });

  it('reports a request that cannot be serialised as INTERNAL, later', async () => {
    const result = await call('unserialisable');
    expect(result.error).toMatchObject({ code: status.INTERNAL });
    expect(result.error?.details).toMatch(/serialization failure: cannot serialise/);
    expect(result).toMatchObject({ calls: 1, sync: false });
  });

  it('reports a response that cannot be parsed as INTERNAL', async () => {
    const result = await call('unparsable');
    expect(result.error).toMatchObject({ code: status.INTERNAL });
    expect(result.error?.details).toMatch(/parsing error: cannot parse/);
    expect(result.calls).toBe(1);
  });

  it('reports an OK status without a message as UNIMPLEMENTED', async () => {
    const result = await call('nothing');
    expect(result.error).toMatchObject({ code: status.UNIMPLEMENTED, details: 'No message received' });
    expect(result.calls).toBe(1);
  });

  it('ends at the deadline', async () => {
    const result = await call('slow', new Metadata(), 100);
    expect(result.error).toMatchObject({ code: status.DEADLINE_EXCEEDED });
    expect(result.calls).toBe(1);
  });
});
