// Proves horizontal scale with a second webhook-delivery replica started from this
// test with the stack's own environment: both replicas take deliveries from the
// same queue and schedule (each records attempts); a replica stopped with SIGTERM
// during an attempt finishes and records it before exiting; and a replica killed
// with SIGKILL in the middle of an attempt loses nothing: once its lease runs out
// the other replica attempts the delivery again with the same delivery id.
import { readFileSync } from 'node:fs';
import {
  createTestPartner,
  HttpsReceiver,
  loadTestStack,
  readServiceLogs,
  ReceivedRequest,
  ServiceInstance,
  startHttpsReceiver,
  startServiceInstance,
  TestPartner,
} from '@platform/testing';
import { deliveryIdOf, sandboxKesCredit, senderPid, setWebhook, waitForDelivery } from './webhook-test-support';

const SHARED_EVENTS = 16;
const RECEIVER_LATENCY_MS = 50;
/** The test stack's DELIVERY_LEASE_MS (scripts/test.mjs) plus reconciliation and the retry itself. */
const RECLAIM_WAIT_MS = 15_000 + 15_000;
/** Each try has odds of one in (the stack's replicas + 1) that the extra replica made the attempt. */
const KILL_TRIES_MAX = 10 * (loadTestStack().replicas?.['webhook-delivery']?.length ?? 1);
const WAIT_MS = 20_000;
/** Well inside the replica's shutdown grace (SHUTDOWN_GRACE_MS 10 s − 1.5 s). */
const GRACEFUL_ANSWER_AFTER_MS = 2_000;

/** Delivery ids recorded as delivered in a log (one replica's, or several concatenated). */
function deliveredIn(log: string): Set<string> {
  const ids = new Set<string>();
  for (const line of log.split('\n')) {
    if (!line.includes('"webhook delivered"')) continue;
    try {
      const entry = JSON.parse(line) as { deliveryId?: string };
      if (entry.deliveryId) ids.add(entry.deliveryId);
    } catch {
      // A line cut short by a kill.
    }
  }
  return ids;
}

describe('several webhook-delivery replicas', () => {
  let partner: TestPartner;
  let receiver: HttpsReceiver;
  let extra: ServiceInstance | null = null;

  beforeEach(async () => {
    partner = await createTestPartner();
    receiver = await startHttpsReceiver();
    await setWebhook(partner, receiver.url);
    extra = await startServiceInstance('webhook-delivery');
  });

  afterEach(async () => {
    await extra?.stop().catch(() => extra?.kill());
    extra = null;
    await receiver.close();
  });

  it('shares the load: both replicas deliver', async () => {
    receiver.delayResponses(RECEIVER_LATENCY_MS);
    for (let index = 0; index < SHARED_EVENTS; index += 1) await sandboxKesCredit(partner, `SHARE${index}`);
    const requests = await receiver.waitForRequests(SHARED_EVENTS, WAIT_MS);
    const ids = new Set(requests.map(deliveryIdOf));
    expect(ids.size).toBe(SHARED_EVENTS);
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // let both log their last outcome

    const byExtra = [...ids].filter((id) => deliveredIn(readFileSync(extra!.logFile, 'utf8')).has(id));
    // The stack's own replicas (one, or STACK_REPLICAS of them) together.
    const byStack = [...ids].filter((id) => deliveredIn(readServiceLogs('webhook-delivery')).has(id));
    expect(byExtra.length).toBeGreaterThan(0);
    expect(byStack.length).toBeGreaterThan(0);
    expect(byExtra.length + byStack.length).toBe(SHARED_EVENTS);
  }, 60_000);

  /** Holds the endpoint and sends events until the extra replica is the one attempting one. */
  async function attemptHeldByExtraReplica(label: string): Promise<ReceivedRequest> {
    receiver.hold(true);
    for (let index = 0; index < KILL_TRIES_MAX; index += 1) {
      await sandboxKesCredit(partner, `${label}${index}`);
      const request = (await receiver.waitForRequests(index + 1, WAIT_MS))[index]!;
      if ((await senderPid(request.remotePort)) === extra!.pid) return request;
      // The stack's replica took this one: let it finish and try another event.
      receiver.hold(false);
      receiver.hold(true);
    }
    throw new Error(`the extra replica made none of ${KILL_TRIES_MAX} attempts`);
  }

  it('finishes the attempt in flight when a replica is stopped gracefully', async () => {
    const request = await attemptHeldByExtraReplica('TERM');
    const stopping = extra!.stop();
    extra = null;
    await new Promise((resolve) => setTimeout(resolve, GRACEFUL_ANSWER_AFTER_MS));
    receiver.hold(false);
    await stopping;

    const deliveryId = deliveryIdOf(request);
    const finished = await waitForDelivery(
      partner.partnerId,
      (d) => d.deliveryId === deliveryId && d.status === 'delivered',
      'the attempt to be recorded',
      WAIT_MS,
    );
    expect(finished).toMatchObject({ attemptCount: 1, lastStatusCode: 200 });
    expect(receiver.requests.filter((received) => deliveryIdOf(received) === deliveryId)).toHaveLength(1);
  }, 120_000);

  it('loses nothing when a replica is killed mid-attempt', async () => {
    const victim = await attemptHeldByExtraReplica('KILL');
    await extra!.kill();
    extra = null;
    receiver.hold(false);

    const deliveryId = deliveryIdOf(victim);
    const retried = await waitForDelivery(
      partner.partnerId,
      (d) => d.deliveryId === deliveryId && d.status === 'delivered',
      'the killed attempt to be retried',
      RECLAIM_WAIT_MS,
    );
    // The killed attempt was never recorded; the retry is, under the same id.
    expect(retried).toMatchObject({ attemptCount: 1, lastStatusCode: 200 });
    const sameId = receiver.requests.filter((request) => deliveryIdOf(request) === deliveryId);
    expect(sameId).toHaveLength(2);
  }, 120_000);
});
