// Proves per-endpoint isolation and that a timeout is a failed attempt: one
// partner's endpoint hangs on every request (more deliveries than its in-flight
// cap), and another partner's webhook still arrives at once. The hanging attempts
// end at the fixed 10 s attempt timeout and are recorded as `timeout` failures,
// to be retried.
import { createTestPartner, startHttpsReceiver } from '@platform/testing';
import { sandboxKesCredit, setWebhook, waitForDelivery } from './webhook-test-support';

const ENDPOINT_IN_FLIGHT_MAX = 4;
const HUNG_EVENTS = ENDPOINT_IN_FLIGHT_MAX + 2;
const OTHER_PARTNER_DELIVERY_MAX_MS = 3_000;
const ATTEMPT_TIMEOUT_MS = 10_000;
const TIMEOUT_RECORDED_WAIT_MS = ATTEMPT_TIMEOUT_MS + 10_000;
const WAIT_MS = 20_000;

describe('a hanging endpoint', () => {
  it('never slows another partner, and its attempts fail as timeouts', async () => {
    const [slowPartner, fastPartner] = await Promise.all([createTestPartner(), createTestPartner()]);
    const [hanging, healthy] = await Promise.all([startHttpsReceiver(), startHttpsReceiver()]);
    try {
      hanging.hold(true);
      await Promise.all([setWebhook(slowPartner, hanging.url), setWebhook(fastPartner, healthy.url)]);
      for (let index = 0; index < HUNG_EVENTS; index += 1) await sandboxKesCredit(slowPartner, `HANG${index}`);
      // The endpoint holds as many attempts as its cap allows, and no more.
      await hanging.waitForRequests(ENDPOINT_IN_FLIGHT_MAX, WAIT_MS);

      const postedAtMs = Date.now();
      await sandboxKesCredit(fastPartner, 'FAST1');
      const [request] = await healthy.waitForRequests(1, WAIT_MS);
      expect(request!.receivedAtMs - postedAtMs).toBeLessThan(OTHER_PARTNER_DELIVERY_MAX_MS);

      const timedOut = await waitForDelivery(
        slowPartner.partnerId,
        (d) => d.attemptCount >= 1,
        'a hung attempt to be recorded',
        TIMEOUT_RECORDED_WAIT_MS,
      );
      expect(timedOut.lastErrorClass).toBe('timeout');
      expect(['pending', 'delivering']).toContain(timedOut.status);
      expect(timedOut.lastStatusCode).toBeUndefined();
    } finally {
      await Promise.all([hanging.close(), healthy.close()]);
    }
  }, 60_000);
});
