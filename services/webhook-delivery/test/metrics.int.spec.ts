// Proves the stack's webhook-delivery replica serves Prometheus metrics on its
// METRICS_PORT: after a delivery, the outcome counter, attempt latency histogram
// and queue lag histogram have samples, and the dead-letter, alert, lease and
// in-flight series and the events feed's backlog gauges are exposed. No series
// is labelled with a URL.
import { createTestPartner, loadTestStack, startHttpsReceiver, waitFor } from '@platform/testing';
import { sandboxKesCredit, setWebhook, waitForDelivery } from './webhook-test-support';

const DELIVERED_SAMPLE = /^webhook_attempts_total\{outcome="delivered",error_class="none"\} [1-9]/m;

async function scrape(): Promise<string> {
  const url = loadTestStack().webhookDeliveryMetricsUrl;
  if (!url) throw new Error('the stack file has no webhookDeliveryMetricsUrl');
  const response = await fetch(url);
  expect(response.status).toBe(200);
  return response.text();
}

describe('webhook-delivery metrics', () => {
  it('exposes deliveries by outcome, attempt latency, queue lag, dead letters and in-flight', async () => {
    const partner = await createTestPartner();
    const receiver = await startHttpsReceiver();
    let text = '';
    try {
      await setWebhook(partner, receiver.url);
      // Another test may run a second replica that takes our delivery: send until this one made one.
      text = await waitFor(
        async () => {
          await sandboxKesCredit(partner, `METRICS${receiver.requests.length}`);
          await waitForDelivery(partner.partnerId, (d) => d.status === 'delivered', 'a delivery', 20_000);
          const scraped = await scrape();
          return DELIVERED_SAMPLE.test(scraped) ? scraped : undefined;
        },
        { timeoutMs: 45_000, intervalMs: 500, what: 'a delivery counted by the stack replica' },
      );
    } finally {
      await receiver.close();
    }
    expect(text).toMatch(DELIVERED_SAMPLE);
    expect(text).toMatch(/^webhook_attempt_duration_seconds_count\{result="success"\} [1-9]/m);
    expect(text).toMatch(/^webhook_queue_lag_seconds_count [1-9]/m);
    for (const name of [
      'webhook_dead_letters_total',
      'webhook_endpoint_failing_alerts_total',
      'webhook_leases_reclaimed_total',
      'webhook_deliveries_overdue',
      'webhook_in_flight',
      'webhook_replays_total',
      'webhook_events_accepted_total',
      'webhook_feed_unpositioned_events',
      'webhook_feed_unpositioned_oldest_age_seconds',
    ]) {
      expect(text).toContain(`# TYPE ${name} `);
    }
    expect(text).not.toContain('https://');
  });
});
