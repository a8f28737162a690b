// Proves that a server built with our options cancels the calls still open when
// its drain's grace ends (`forceShutdown`): the caller hears at once instead of
// waiting for its deadline. grpc-js records a server's open connections only
// while channelz is on, so this fails if serverOptions() turns channelz off.
import { Metadata, sendUnaryData, ServerUnaryCall, ServiceError } from '@grpc/grpc-js';
import { serverOptions } from './server';
import { startInsecurePair, stringMethod } from './testing/insecure-server';
import { unaryCall, UnaryMethod } from './unary-call';

const NEVER_ANSWERED: UnaryMethod<string, string> = stringMethod('/test.Hang/Wait');
const CALL_DEADLINE_MS = 10_000;
/** Far below the deadline: the call must end because of the shutdown, not the deadline. */
const ENDED_WITHIN_MS = 2_000;

describe('forceShutdown with our server options', () => {
  it('ends a call still open at once', async () => {
    let received: () => void = () => {};
    const callReceived = new Promise<void>((resolve) => (received = resolve));
    const { server, client, close } = await startInsecurePair(
      { wait: stringMethod('/test.Hang/Wait') },
      { wait: (_call: ServerUnaryCall<string, string>, _callback: sendUnaryData<string>) => received() },
      serverOptions(),
    );
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
      close();
    }
  });
});
