// Proves that a server built with our options cancels the calls still open when
// its drain's grace ends (`forceShutdown`): the caller hears at once instead of
// waiting for its deadline. grpc-js records a server's open connections only
// while channelz is on, so this fails if serverOptions() turns channelz off.
import {
  Client,
  credentials,
  Metadata,
  sendUnaryData,
  Server,
  ServerCredentials,
  ServerUnaryCall,
  ServiceError,
} from '@grpc/grpc-js';
import { serverOptions } from './server';
import { unaryCall, UnaryMethod } from './unary-call';

const NEVER_ANSWERED: UnaryMethod<string, string> = {
  path: '/test.Hang/Wait',
  requestStream: false,
  responseStream: false,
  requestSerialize: (value: string) => Buffer.from(value, 'utf8'),
  requestDeserialize: (buffer: Buffer) => buffer.toString('utf8'),
  responseSerialize: (value: string) => Buffer.from(value, 'utf8'),
  responseDeserialize: (buffer: Buffer) => buffer.toString('utf8'),
};
const CALL_DEADLINE_MS = 10_000;
/** Far below the deadline: the call must end because of the shutdown, not the deadline. */
const ENDED_WITHIN_MS = 2_000;

describe('forceShutdown with our server options', () => {
  it('ends a call still open at once', async () => {
    const server = new Server(serverOptions());
    let received: () => void = () => {};
    const callReceived = new Promise<void>((resolve) => (received = resolve));
    server.addService(
      { wait: NEVER_ANSWERED },
      {
        wait: (_call: ServerUnaryCall<string, string>, _callback: sendUnaryData<string>) => received(),
      },
    );
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) =>
        error ? reject(error) : resolve(bound),
      ),
    );
    const client = new Client(`127.0.0.1:${port}`, credentials.createInsecure());
    try {
      const ended = new Promise<{ error: ServiceError | null; atMs: number }>((resolve) =>
        unaryCall(client.getChannel(), NEVER_ANSWERED, 'wait', new Metadata(), Date.now() + CALL_DEADLINE_MS, (error) =>
          resolve({ error, atMs: Date.now() }),
        ),
      );
      await callReceived;
      const shutdownAtMs = Date.now();
      server.forceShutdown();
      const { error, atMs } = await ended;
      expect(error).not.toBeNull();
      expect(atMs - shutdownAtMs).toBeLessThan(ENDED_WITHIN_MS);
    } finally {
      client.close();
      server.forceShutdown();
    }
  });
});
