// Proves a client spreads its calls over every replica named in its address,
// keeps answering when one replica goes away (the call that met it is retried on
// the other), and sends calls to a replica again within a second of its return.
// Two real servers over mutual TLS on this machine, each counting what it serves.
import { notifier } from '@platform/proto';
import { createClient } from './client';
import {
  createReplicaTls,
  NotifierReplica,
  ReplicaTls,
  SEND_MESSAGE_REQUEST as request,
  silentLogger as silent,
  startNotifierReplica,
} from './testing/notifier-replicas';

const CALLS = 200;
const SHARE_MIN = 0.4;
const SHARE_MAX = 0.6;
/** The capped backoff (960 ms with jitter) and a handshake; the machine is shared, so some slack. */
const USED_AGAIN_WITHIN_MS = 1_500;
const POLL_EVERY_MS = 20;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let tls: ReplicaTls;
const callers: Array<{ close(): void }> = [];
const startReplica = (port: number): Promise<NotifierReplica> => startNotifierReplica(tls.serverTls, port);

beforeAll(() => {
  tls = createReplicaTls('balancing-spec-');
});

afterAll(() => {
  for (const caller of callers) caller.close();
  tls.close();
});

it('spreads calls over both replicas, survives losing one, and uses it again within a second of its return', async () => {
  const first = await startReplica(0);
  const second = await startReplica(0);
  const caller = createClient(notifier.NotifierService, {
    upstream: 'notifier',
    address: `127.0.0.1:${first.port},127.0.0.1:${second.port}`,
    logger: silent,
    tls: tls.clientTls.client('notifier'),
    deadlineMs: 2_000,
    volumeThreshold: 1_000_000,
  });
  callers.push(caller);
  // Both connections up before counting (the first calls may all go to whichever connected first).
  await caller.sendMessage(request);
  await sleep(300);
  first.served = 0;
  second.served = 0;
  for (let call = 0; call < CALLS; call += 1) await caller.sendMessage(request);
  expect(first.served / CALLS).toBeGreaterThanOrEqual(SHARE_MIN);
  expect(first.served / CALLS).toBeLessThanOrEqual(SHARE_MAX);
  expect(first.served + second.served).toBe(CALLS);

  await second.server.shutdown(0);
  const failures = [];
  for (let call = 0; call < 50; call += 1) await caller.sendMessage(request).catch((error) => failures.push(error));
  expect(failures).toEqual([]);

  const back = await startReplica(second.port);
  const backAt = Date.now();
  while (back.served === 0 && Date.now() - backAt < 5 * USED_AGAIN_WITHIN_MS) {
    await caller.sendMessage(request);
    await sleep(POLL_EVERY_MS);
  }
  const usedAfterMs = Date.now() - backAt;
  await Promise.all([first.server.shutdown(0), back.server.shutdown(0)]);
  expect(back.served).toBeGreaterThan(0);
  expect(usedAfterMs).toBeLessThan(USED_AGAIN_WITHIN_MS);
}, 30_000);
