// Proves the retry schedule end to end at the test stack's SANDBOX_TIME_SCALE: a
// delivery whose endpoint always answers 500 is attempted exactly 7 times, with the
// same X-Service-Delivery id, each gap inside the documented delay ±20 % (scaled),
// then it is dead (listed by `deliveries list --dead`) and nothing more is sent. A
// replay re-opens it with the same delivery id and a fresh round of attempts, and
// it is delivered. Also: replaying an unknown id is refused, and a range replay
// re-sends a partner's deliveries (all, or only the dead ones) keeping their ids.
import { randomUUID } from 'node:crypto';
import { createTestPartner, HttpsReceiver, runOps, startHttpsReceiver, TestPartner, waitFor } from '@platform/testing';
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

describe('dead letters and replay', () => {
  let partner: TestPartner;
  let receiver: HttpsReceiver;
  let secret: string;

  beforeEach(async () => {
    partner = await createTestPartner();
    receiver = await startHttpsReceiver();
    secret = await setWebhook(partner, receiver.url);
  });

  afterEach(async () => {
    await receiver.close();
  });

  it(
    'attempts 7 times on the scaled schedule with one delivery id, dead-letters, then replays with the same id',
    async () => {
      const scale = sandboxTimeScale();
      receiver.respondWith(500);
      await sandboxKesCredit(partner, 'DEAD7');
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

function waitFor2Delivered(partnerId: string) {
  return waitFor(
    async () => {
      const found = await listDeliveries(partnerId);
      return found.length === 2 && found.every((d) => d.status === 'delivered') ? found : undefined;
    },
    { timeoutMs: WAIT_MS, intervalMs: 250, what: 'both deliveries to be delivered' },
  );
}
