/**
 * Runs in every replica: reconciliation of the delivery schedule, so that no
 * delivery is stranded by a replica that died and lateness is seen.
 *
 * - Deliveries left `delivering` past their lease (their replica died or
 *   stalled) go back to `pending`, due at once, so any replica claims them with
 *   the same delivery id. The UPDATE is conditional on the lease having run
 *   out, so several replicas reconciling at once release each row once.
 * - Pending deliveries due for longer than DELIVERY_OVERDUE_MS are counted
 *   (gauge) and reported as a structured alert: they are claimable already, so
 *   lateness means the replicas are short of capacity or an endpoint is held at
 *   its in-flight cap.
 * - Events not yet given a feed position are counted, with the age of the
 *   oldest (gauges): the positioner normally numbers an event within a second,
 *   so a growing age means it is stalled and partners paging the events feed
 *   stop at the last numbered event.
 *
 * The producing services' half of reconciliation is their OutboxRelay: it
 * re-publishes every outbox row the broker never confirmed, and alerts when the
 * oldest unpublished row is older than its lag threshold. No service reads
 * another's tables.
 *
 * It runs on the shared WorkLoop (@platform/persistence): one pass at a time,
 * every interval, and stop() waits for the pass in flight within the drain
 * bound. It needs only its own database, so it has no readiness gate.
 */
import type { Logger } from '@platform/logger';
import { WorkLoop } from '@platform/persistence';
import type { DeliveryMetrics } from '../metrics/delivery-metrics';
import type { DeliveriesRepository } from '../persistence/deliveries.repository';
import type { EventFeedRepository } from '../persistence/event-feed.repository';

export interface DeliveryReconcilerOptions {
  intervalMs: number;
  /** Pending this long past its due time is overdue. */
  overdueMs: number;
}

export class DeliveryReconciler {
  private readonly loop: WorkLoop;

  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly feed: Pick<EventFeedRepository, 'unpositioned'>,
    private readonly metrics: DeliveryMetrics,
    private readonly logger: Logger,
    private readonly options: DeliveryReconcilerOptions,
    /** Called when deliveries became claimable, so the scheduler looks at once. */
    private readonly onReleased: () => void,
  ) {
    this.loop = new WorkLoop(
      async () => {
        await this.reconcileOnce();
        return 'idle';
      },
      logger,
      { name: 'delivery reconciler', intervalMs: options.intervalMs },
    );
  }

  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }

  async reconcileOnce(): Promise<void> {
    try {
      await this.metrics.reconciler.pass(() => this.reconcile());
    } catch (error) {
      this.logger.warn('delivery reconciliation failed; will retry', { error: (error as Error).message });
    }
  }

  /** Leases run out are the reconciler's claims: deliveries it takes back. */
  private async reconcile(): Promise<void> {
    const released = await this.deliveries.releaseExpiredLeases();
    this.metrics.reconciler.claimed(released);
    if (released > 0) {
      this.metrics.leasesReleased(released);
      this.logger.warn('reclaimed deliveries whose lease ran out', { alert: 'webhook_lease_expired', count: released });
      this.onReleased();
    }
    const overdue = await this.deliveries.overdue(this.options.overdueMs);
    this.metrics.overdueObserved(overdue.count);
    if (overdue.count > 0) {
      this.logger.warn('webhook deliveries overdue for their next attempt', {
        alert: 'webhook_deliveries_overdue',
        count: overdue.count,
        oldestDueAt: overdue.oldestDueAt?.toISOString(),
      });
    }
    const backlog = await this.feed.unpositioned();
    this.metrics.feedBacklogObserved(backlog.count, backlog.oldestAgeSeconds);
  }
}
