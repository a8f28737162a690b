// Proves one reconciliation pass with fakes at its edges: deliveries whose lease
// ran out are released, counted and the scheduler is kicked; overdue pending
// deliveries set the gauge; the events feed's backlog (events without a feed
// position) sets its two gauges; a failing database is logged, never thrown.
import { createLogger } from '@platform/logger';
import { Registry } from '@platform/metrics';
import { DeliveryMetrics } from '../metrics/delivery-metrics';
import type { DeliveriesRepository } from '../persistence/deliveries.repository';
import type { UnpositionedEvents } from '../persistence/event-feed.repository';
import { DeliveryReconciler } from './delivery.reconciler';

const logger = createLogger('webhook-delivery-spec', 'error');

async function sample(metrics: DeliveryMetrics, name: string): Promise<number> {
  const metric = await metrics.registry.getSingleMetric(name)?.get();
  return metric?.values[0]?.value ?? 0;
}

const NO_BACKLOG: UnpositionedEvents = { count: 0, oldestAgeSeconds: 0 };

function build(
  deliveries: Partial<DeliveriesRepository>,
  backlog: () => Promise<UnpositionedEvents> = async () => NO_BACKLOG,
) {
  const metrics = new DeliveryMetrics(new Registry());
  let kicks = 0;
  const reconciler = new DeliveryReconciler(
    deliveries as DeliveriesRepository,
    { unpositioned: backlog },
    metrics,
    logger,
    { intervalMs: 1_000, overdueMs: 60_000 },
    () => {
      kicks += 1;
    },
  );
  return { reconciler, metrics, kicks: () => kicks };
}

describe('DeliveryReconciler', () => {
  it('releases expired leases, kicks the scheduler and reports overdue deliveries', async () => {
    const { reconciler, metrics, kicks } = build({
      releaseExpiredLeases: async () => 3,
      overdue: async () => ({ count: 2, oldestDueAt: new Date() }),
    });
    await reconciler.reconcileOnce();
    expect(kicks()).toBe(1);
    expect(await sample(metrics, 'webhook_leases_reclaimed_total')).toBe(3);
    expect(await sample(metrics, 'webhook_deliveries_overdue')).toBe(2);
  });

  it('does not kick when nothing was released', async () => {
    const { reconciler, kicks } = build({
      releaseExpiredLeases: async () => 0,
      overdue: async () => ({ count: 0, oldestDueAt: null }),
    });
    await reconciler.reconcileOnce();
    expect(kicks()).toBe(0);
  });

  it('reports the events waiting for a feed position and how long the oldest has waited', async () => {
    const backlogs = [
      { count: 40, oldestAgeSeconds: 12.5 },
      { count: 0, oldestAgeSeconds: 0 },
    ];
    const { reconciler, metrics } = build(
      { releaseExpiredLeases: async () => 0, overdue: async () => ({ count: 0, oldestDueAt: null }) },
      async () => backlogs.shift() ?? NO_BACKLOG,
    );
    await reconciler.reconcileOnce();
    expect(await sample(metrics, 'webhook_feed_unpositioned_events')).toBe(40);
    expect(await sample(metrics, 'webhook_feed_unpositioned_oldest_age_seconds')).toBe(12.5);
    await reconciler.reconcileOnce();
    expect(await sample(metrics, 'webhook_feed_unpositioned_events')).toBe(0);
    expect(await sample(metrics, 'webhook_feed_unpositioned_oldest_age_seconds')).toBe(0);
  });

  it('survives a failing database', async () => {
    const { reconciler } = build({ releaseExpiredLeases: async () => Promise.reject(new Error('down')) });
    await expect(reconciler.reconcileOnce()).resolves.toBeUndefined();
  });
});
