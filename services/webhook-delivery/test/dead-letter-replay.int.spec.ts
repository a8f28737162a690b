// Proves the retry schedule end to end at the test stack's SANDBOX_TIME_SCALE: a
// delivery whose endpoint always answers 500 is attempted exactly 7 times, with the
// same X-Service-Delivery id, each gap inside the documented delay ±20 % (scaled),
// then it is dead (listed by `deliveries list --dead`) and nothing more is sent. A
// replay re-opens it with the same delivery id and a fresh round of attempts, and
// it is delivered. Also: replaying an unknown id is refused, and a range replay
// re-sends a partner's deliveries (all, or only the dead ones) keeping their ids.
// Through the gateway, a partner lists its own failing then dead delivery and
// retries it once its endpoint is fixed (same delivery id, idempotent), while
// another partner's id is 404.
// Both dead letters wait out the whole scaled schedule: they are started together
// before the other tests and run beside them, so the file waits for it once.
import { randomUUID } from 'node:crypto';
import {
  createTestPartner,
  HttpsReceiver,
  PartnerHttpClient,
  ReceivedRequest,
  runOps,
  startHttpsReceiver,
  TestPartner,
  waitFor,
} from '@platform/testing';
import {
  deliveryIdOf,
  listDeliveries,
  opsRefusal,
  sandboxKesCredit,
  sandboxTimeScale,
  setWebhook,
  signatureVerifies,
  waitForDelivery,
} from './webhook-test-support';

const ATTEMPTS = 7;
const RETRY_DELAYS_MS = [30_000, 60_000, 120_000, 240_000, 480_000, 900_000];
const JITTER_RATIO = 0.2;
/**
 * Claiming is polled every 250 ms; recording, the next claim and a busy shared test
 * machine add a little. The lower bound is the property; this only catches a stall.
 */
const LATE_SLACK_MS = 2_500;
const EARLY_SLACK_MS = 100;
/** The whole scaled schedule is 1830 s × 0.05 ≈ 92 s (up to 110 s with jitter). */
const FULL_SCHEDULE_WAIT_MS = 150_000;
const DEAD_LETTER_TEST_TIMEOUT_MS = 200_000;
const WAIT_MS = 20_000;

/** A partner's delivery as the partner API lists it. */
interface Delivery {
  id: string;
  eventId: string;
  eventType: string;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  nextAttemptAt: string | null;
}

/** A partner whose endpoint answers 500 to everything, after one credit: its delivery is on its way to dead. */
interface FailingPartner {
  partner: TestPartner;
  receiver: HttpsReceiver;
  secret: string;
}

async function failingPartner(reference: string): Promise<FailingPartner> {
  const partner = await createTestPartner();
  const receiver = await startHttpsReceiver();
  receiver.respondWith(500);
  const secret = await setWebhook(partner, receiver.url);
  await sandboxKesCredit(partner, reference);
  return { partner, receiver, secret };
}

const listedByPartner = (client: PartnerHttpClient, status: string) =>
  client.get<Delivery[]>(`/v1/webhook-deliveries?status=${status}`).then((response) => response.body);

/** The partner plane's dead letter, up to what must be seen while its delivery is still retried: failing. */
async function failingInPartnerList(): Promise<
  FailingPartner & { client: PartnerHttpClient; firstAttempt: ReceivedRequest; failing: Delivery }
> {
  const failingOne = await failingPartner('RETRY1');
  const client = new PartnerHttpClient(failingOne.partner);
  const [firstAttempt] = await failingOne.receiver.waitForRequests(1, WAIT_MS);
  const deliveryId = deliveryIdOf(firstAttempt!);
  const failing = await waitFor(
    async () => (await listedByPartner(client, 'failing')).find((delivery) => delivery.id === deliveryId),
    { timeoutMs: WAIT_MS, what: 'a failing delivery' },
  );
  return { ...failingOne, client, firstAttempt: firstAttempt!, failing };
}

/** Started now, awaited by a test later: a failure meanwhile is that test's, not an unhandled rejection. */
function started<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

describe('dead letters and replay', () => {
  let opsDeadLetter: Promise<FailingPartner>;
  let partnerDeadLetter: ReturnType<typeof failingInPartnerList>;

  beforeAll(() => {
    opsDeadLetter = started(failingPartner('DEAD7'));
    partnerDeadLetter = started(failingInPartnerList());
  });

  afterAll(async () => {
    for (const run of await Promise.allSettled([opsDeadLetter, partnerDeadLetter]))
      if (run.status === 'fulfilled') await run.value.receiver.close();
  });

  describe('beside the two dead letters', () => {
    let partner: TestPartner;
    let receiver: HttpsReceiver;

    beforeEach(async () => {
      partner = await createTestPartner();
      receiver = await startHttpsReceiver();
      await setWebhook(partner, receiver.url);
    });

    afterEach(async () => {
      await receiver.close();
    });

    it('refuses to replay an unknown delivery id', async () => {
      expect(await opsRefusal(['deliveries', 'replay', '--delivery', randomUUID()])).toContain('DELIVERY_NOT_FOUND');
    });

    it('leaves a delivery still open as it is', async () => {
      receiver.hold(true);
      await sandboxKesCredit(partner, 'OPEN1');
      const [request] = await receiver.waitForRequests(1, WAIT_MS);
      const replay = await runOps<{ deliveryId: string; status: string }>([
        'deliveries',
        'replay',
        '--delivery',
        deliveryIdOf(request!),
      ]);
      expect(replay).toEqual({ deliveryId: deliveryIdOf(request!), status: 'delivering' });
      receiver.hold(false);
      await waitForDelivery(partner.partnerId, (d) => d.status === 'delivered', 'the delivery to finish', WAIT_MS);
      expect(receiver.requests).toHaveLength(1);
    });

    it('replays a partner range with the same delivery ids, and --dead-only skips delivered ones', async () => {
      const since = new Date(Date.now() - 60_000).toISOString();
      await sandboxKesCredit(partner, 'RANGE1');
      await sandboxKesCredit(partner, 'RANGE2');
      const firstRound = await receiver.waitForRequests(2, WAIT_MS);
      await waitFor2Delivered(partner.partnerId);
      const until = new Date(Date.now() + 60_000).toISOString();
      const range = ['deliveries', 'replay', '--partner', partner.partnerId, '--since', since, '--until', until];

      expect(await runOps([...range, '--dead-only'])).toEqual({
        partnerId: partner.partnerId,
        replayed: 0,
        remaining: 0,
      });
      expect(await runOps(range)).toEqual({ partnerId: partner.partnerId, replayed: 2, remaining: 0 });
      const all = await receiver.waitForRequests(4, WAIT_MS);
      const ids = (requests: typeof all) => requests.map(deliveryIdOf).sort();
      expect(ids(all.slice(2))).toEqual(ids(firstRound));
      const after = await waitFor2Delivered(partner.partnerId);
      expect(after.every((d) => d.replayCount === 1 && d.attemptCount === 1)).toBe(true);
    });

    it('refuses a reversed range', async () => {
      const now = Date.now();
      const refusal = await opsRefusal([
        'deliveries',
        'replay',
        '--partner',
        partner.partnerId,
        '--since',
        new Date(now).toISOString(),
        '--until',
        new Date(now - 1_000).toISOString(),
      ]);
      expect(refusal).toContain('VALIDATION_FAILED');
      expect(refusal).toContain('until');
    });
  });

  it(
    'attempts 7 times on the scaled schedule with one delivery id, dead-letters, then replays with the same id',
    async () => {
      const { partner, receiver, secret } = await opsDeadLetter;
      const scale = sandboxTimeScale();
      const attempts = await receiver.waitForRequests(ATTEMPTS, FULL_SCHEDULE_WAIT_MS);

      const deliveryId = deliveryIdOf(attempts[0]!);
      expect(attempts.every((request) => deliveryIdOf(request) === deliveryId)).toBe(true);
      expect(
        attempts.every((request) => request.body === attempts[0]!.body && signatureVerifies(request, secret)),
      ).toBe(true);
      for (let index = 1; index < ATTEMPTS; index += 1) {
        const gapMs = attempts[index]!.receivedAtMs - attempts[index - 1]!.receivedAtMs;
        const baseMs = RETRY_DELAYS_MS[index - 1]! * scale;
        expect(gapMs).toBeGreaterThanOrEqual(baseMs * (1 - JITTER_RATIO) - EARLY_SLACK_MS);
        expect(gapMs).toBeLessThanOrEqual(baseMs * (1 + JITTER_RATIO) + LATE_SLACK_MS);
      }

      const dead = await waitForDelivery(
        partner.partnerId,
        (d) => d.deliveryId === deliveryId && d.status === 'dead',
        'the delivery to be dead',
        WAIT_MS,
      );
      expect(dead).toMatchObject({
        attemptCount: ATTEMPTS,
        lastStatusCode: 500,
        lastErrorClass: 'http_status',
        replayCount: 0,
      });
      expect((await listDeliveries(partner.partnerId, true)).map((d) => d.deliveryId)).toEqual([deliveryId]);
      // Dead means no 8th attempt, even after the longest scaled gap would have passed.
      await new Promise((resolve) => setTimeout(resolve, RETRY_DELAYS_MS[0]! * scale * 2));
      expect(receiver.requests).toHaveLength(ATTEMPTS);

      receiver.respondWith(200);
      const replay = await runOps<{ deliveryId: string; status: string }>([
        'deliveries',
        'replay',
        '--delivery',
        deliveryId,
      ]);
      expect(replay).toEqual({ deliveryId, status: 'pending' });
      const [, , , , , , , replayed] = await receiver.waitForRequests(ATTEMPTS + 1, WAIT_MS);
      expect(deliveryIdOf(replayed!)).toBe(deliveryId);
      expect(replayed!.body).toBe(attempts[0]!.body);
      expect(signatureVerifies(replayed!, secret)).toBe(true);
      const delivered = await waitForDelivery(
        partner.partnerId,
        (d) => d.deliveryId === deliveryId && d.status === 'delivered',
        'the replay to deliver',
        WAIT_MS,
      );
      // A replay grants a fresh round: the count restarts, the replay is counted.
      expect(delivered).toMatchObject({ attemptCount: 1, replayCount: 1, lastStatusCode: 200 });
      expect(await listDeliveries(partner.partnerId, true)).toEqual([]);
    },
    DEAD_LETTER_TEST_TIMEOUT_MS,
  );

  it(
    'lists a failing then dead delivery to its partner, retries it once the endpoint is fixed with the same id, and hides it from another partner',
    async () => {
      const { client: own, receiver, firstAttempt, failing } = await partnerDeadLetter;
      const other = new PartnerHttpClient(await createTestPartner());
      const deliveryId = deliveryIdOf(firstAttempt);
      expect(failing).toMatchObject({ eventType: 'credit.received', lastStatusCode: 500, status: 'failing' });
      expect(failing.nextAttemptAt).not.toBeNull();
      await receiver.waitForRequests(ATTEMPTS, FULL_SCHEDULE_WAIT_MS);
      const dead = await waitFor(
        async () => (await listedByPartner(own, 'dead')).find((delivery) => delivery.id === deliveryId),
        { timeoutMs: WAIT_MS, what: 'a dead delivery' },
      );
      expect(dead).toMatchObject({ attempts: ATTEMPTS, nextAttemptAt: null });

      const foreignRetry = await other.post(`/v1/webhook-deliveries/${deliveryId}/retry`);
      expect({ status: foreignRetry.status, message: foreignRetry.body.message }).toEqual({
        status: 404,
        message: 'DELIVERY_NOT_FOUND',
      });
      expect(
        (await other.get<Delivery[]>('/v1/webhook-deliveries')).body.some((delivery) => delivery.id === deliveryId),
      ).toBe(false);

      receiver.respondWith(200);
      const retried = await own.post<Delivery>(`/v1/webhook-deliveries/${deliveryId}/retry`);
      expect(retried.status).toBe(200);
      expect(retried.body).toMatchObject({ id: deliveryId, status: 'pending', attempts: 0 });
      const [, , , , , , , resent] = await receiver.waitForRequests(ATTEMPTS + 1, WAIT_MS);
      expect(deliveryIdOf(resent!)).toBe(deliveryId);
      expect(resent!.body).toBe(firstAttempt.body);
      await waitFor(
        async () => (await listedByPartner(own, 'delivered')).find((delivery) => delivery.id === deliveryId),
        { timeoutMs: WAIT_MS, what: 'the retry delivered' },
      );
      // Asking again answers the delivery as it is and sends nothing more.
      const again = await own.post<Delivery>(`/v1/webhook-deliveries/${deliveryId}/retry`);
      expect(again.body).toMatchObject({ id: deliveryId, status: 'delivered' });
      expect(receiver.requests).toHaveLength(ATTEMPTS + 1);
    },
    DEAD_LETTER_TEST_TIMEOUT_MS,
  );
});

function waitFor2Delivered(partnerId: string) {
  return waitFor(
    async () => {
      const found = await listDeliveries(partnerId);
      return found.length === 2 && found.every((d) => d.status === 'delivered') ? found : undefined;
    },
    { timeoutMs: WAIT_MS, intervalMs: 250, what: 'both deliveries to be delivered' },
  );
}
