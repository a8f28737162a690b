// Proves the stack's webhook-delivery replicas serve Prometheus metrics on their
// METRICS_PORTs: after a delivery, the replica that made it has samples of the
// outcome counter, attempt latency histogram and queue lag histogram, and the
// dead-letter, alert, lease and in-flight series and the events feed's backlog
// gauges are exposed. No series is labelled with a URL.
import { createTestPartner, loadTestStack, startHttpsReceiver, waitFor } from '@platform/testing';
import { sandboxKesCredit, setWebhook, waitForDelivery } from './webhook-test-support';

const DELIVERED_SAMPLE = /^webhook_attempts_total\{outcome="delivered",error_class="none"\} [1-9]/m;

/** Every replica's scrape (one unless the stack runs STACK_REPLICAS): any of them may make the delivery. */
async function scrapeEach(): Promise<string[]> {
  const stack = loadTestStack();
  const urls = stack.replicas?.['webhook-delivery']?.map((replica) => replica.metricsUrl) ?? [
    stack.webhookDeliveryMetricsUrl,
  ];
  if (urls.some((url) => !url)) throw new Error('the stack file has no webhook-delivery metrics URL');
  return Promise.all(
    urls.map(async (url) => {
      const response = await fetch(url!);
      expect(response.status).toBe(200);
      return response.text();
    }),
  );
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
          return (await scrapeEach()).find((scraped) => DELIVERED_SAMPLE.test(scraped));
        },
        { timeoutMs: 45_000, intervalMs: 500, what: 'a delivery counted by a stack replica' },
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
