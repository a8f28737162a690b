// Proves a client reaches a restarted upstream soon after it is back, however
// long it was down: the channel's reconnect backoff is capped, so a caller does
// not keep failing fast for tens of seconds after its peer has recovered (the
// gRPC default backoff grows to two minutes while the peer is away).
import { notifier } from '@platform/proto';
import { createClient } from './client';
import {
  createReplicaTls,
  ReplicaTls,
  SEND_MESSAGE_REQUEST as request,
  silentLogger as silent,
  startNotifierReplica,
} from './testing/notifier-replicas';

/** Long enough for the default backoff to have grown past several seconds. */
const DOWN_MS = 10_000;
const CALL_EVERY_MS = 100;
const CALL_DEADLINE_MS = 1_000;
/** The capped backoff (under a second, with jitter) plus a handshake, with room for a loaded machine. */
const BACK_WITHIN_MS = 4_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let tls: ReplicaTls;
const callers: Array<{ close(): void }> = [];

beforeAll(() => {
  tls = createReplicaTls('reconnect-spec-');
});

afterAll(() => {
  for (const caller of callers) caller.close();
  tls.close();
});

it('calls a restarted upstream successfully within seconds of its return, after a long absence', async () => {
  const first = await startNotifierReplica(tls.serverTls, 0);
  // The breaker never opens here: this measures the channel alone.
  const caller = createClient(notifier.NotifierService, {
    upstream: 'notifier',
    address: `127.0.0.1:${first.port}`,
    logger: silent,
    tls: tls.clientTls.client('notifier'),
    deadlineMs: CALL_DEADLINE_MS,
    volumeThreshold: 1_000_000,
  });
  callers.push(caller);
  await expect(caller.sendMessage(request)).resolves.toMatchObject({ messageId: 'm-1' });

  await first.server.shutdown(0);
  const downUntil = Date.now() + DOWN_MS;
  let failedWhileDown = 0;
  while (Date.now() < downUntil) {
    await caller.sendMessage(request).then(
      () => undefined,
      () => {
        failedWhileDown += 1;
      },
    );
    await sleep(CALL_EVERY_MS);
  }
  expect(failedWhileDown).toBeGreaterThan(0);

  const second = await startNotifierReplica(tls.serverTls, first.port);
  const backAt = Date.now();
  let answeredAfterMs: number | null = null;
  while (answeredAfterMs === null && Date.now() - backAt < 4 * BACK_WITHIN_MS) {
    const answered = await caller.sendMessage(request).then(
      () => true,
      () => false,
    );
    if (answered) answeredAfterMs = Date.now() - backAt;
    else await sleep(CALL_EVERY_MS);
  }
  await second.server.shutdown(0);
  expect(answeredAfterMs).not.toBeNull();
  expect(answeredAfterMs!).toBeLessThan(BACK_WITHIN_MS);
}, 60_000);
