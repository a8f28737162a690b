// Proves answeredAtOnce on grpc-js as installed, over a real server and client:
// grpc-js's call still has the shape it relies on (so an upgrade that changes it
// fails here, not silently in latency); a successful answer arrives whole, its
// status sent together with the message (not once the write has completed);
// an error keeps its status; a message that cannot be serialised is answered
// INTERNAL, once, and the server goes on serving.
import { Metadata, sendUnaryData, ServerUnaryCall, ServiceError, status } from '@grpc/grpc-js';
import { answeredAtOnce, answersAtOnce } from './answer-at-once';
import { InsecurePair, startInsecurePair, stringMethod } from './testing/insecure-server';

const encode = (value: string) => {
  if (value === 'unserialisable') throw new Error('cannot serialise');
  return Buffer.from(value, 'utf8');
};
const decode = (buffer: Buffer) => buffer.toString('utf8');
const METHOD = stringMethod('/test.Echo/Say', { requestSerialize: encode, responseSerialize: encode });

type Handler = (call: ServerUnaryCall<string, string>, callback: sendUnaryData<string>) => void;

describe('answeredAtOnce', () => {
  let pair: InsecurePair;
  const seen: { atOnce: boolean[]; statusWithMessage: boolean[] } = { atOnce: [], statusWithMessage: [] };

  const answer: Handler = (call, callback) => {
    seen.atOnce.push(answersAtOnce(call as ServerUnaryCall<unknown, unknown>));
    // Notes whether the status goes out with the message, before the answer's callback returns
    // (grpc-js's own path sends it once the message's write has completed, later).
    const raw = (call as unknown as { call: { sendStatus: (...args: unknown[]) => void } }).call;
    const sendStatus = raw.sendStatus.bind(raw);
    let answered = false;
    raw.sendStatus = (...args: unknown[]) => {
      if (call.request === 'hello') seen.statusWithMessage.push(!answered);
      sendStatus(...args);
    };
    if (call.request === 'fail') callback({ code: status.FAILED_PRECONDITION, details: 'refused' });
    else if (call.request === 'answer badly') callback(null, 'unserialisable');
    else callback(null, call.request);
    answered = true;
  };

  beforeAll(async () => {
    pair = await startInsecurePair({ say: METHOD }, { say: answeredAtOnce(answer) });
  });

  afterAll(() => pair.close());

  const say = (text: string) =>
    new Promise<string>((resolve, reject) =>
      pair.client.makeUnaryRequest(
        METHOD.path,
        encode,
        decode,
        text,
        new Metadata(),
        { deadline: Date.now() + 5_000 },
        (error: ServiceError | null, value?: string) => (error ? reject(error) : resolve(value as string)),
      ),
    );

  it("finds grpc-js's call in the shape it relies on", async () => {
    await say('hello');
    expect(seen.atOnce).toEqual([true]);
  });

  it('answers whole, with the status sent together with the message', async () => {
    await expect(say('hello')).resolves.toBe('hello');
    expect(seen.statusWithMessage.length).toBeGreaterThan(0);
    expect(seen.statusWithMessage.every(Boolean)).toBe(true);
  });

  it("keeps an error's status", async () => {
    await expect(say('fail')).rejects.toMatchObject({ code: status.FAILED_PRECONDITION, details: 'refused' });
  });

  it('answers INTERNAL for a message that cannot be serialised, and serves on', async () => {
    await expect(say('answer badly')).rejects.toMatchObject({ code: status.INTERNAL });
    await expect(say('hello')).resolves.toBe('hello');
  });
});
