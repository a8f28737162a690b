/**
 * Prometheus metrics of webhook delivery on this replica, on the process's
 * registry (@platform/metrics), which the service serves on METRICS_PORT at
 * /metrics beside the platform's shared families.
 * Labels are bounded: outcomes and error classes are fixed sets, and the only
 * open-ended label is partner_id on the in-flight gauge, which is removed as
 * soon as the partner has nothing in flight here. Never URLs.
 */
import { counter, gauge, histogram, metricsRegistry, MS_PER_SECOND, Registry, WorkerMetrics } from '@platform/metrics';
import type { ErrorClass } from '../domain/attempt-outcome';
import { UNPOSITIONED_COUNTED_MAX } from '../persistence/event-feed.repository';

export type AttemptOutcome = 'delivered' | 'retry' | 'dead';
export type AcceptOutcomeLabel = 'created' | 'duplicate' | 'no_endpoint';

const ATTEMPT_SECONDS_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15];
const QUEUE_LAG_SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 60, 300, 3600];

/** The families of webhook delivery, declared on `registry`. */
function deliveryFamilies(registry: Registry) {
  return {
    attempts: counter(
      {
        name: 'webhook_attempts_total',
        help: 'Delivery attempts by what the delivery became (delivered, retry, dead) and error class (none on success).',
        labelNames: ['outcome', 'error_class'] as const,
      },
      registry,
    ),
    attemptSeconds: histogram(
      {
        name: 'webhook_attempt_duration_seconds',
        help: 'Duration of one delivery attempt (DNS, connect, TLS, request, response head).',
        labelNames: ['result'] as const,
        buckets: ATTEMPT_SECONDS_BUCKETS,
      },
      registry,
    ),
    accepted: counter(
      {
        name: 'webhook_events_accepted_total',
        help: 'Bus events turned into deliveries, by outcome (created, duplicate, no_endpoint).',
        labelNames: ['outcome'] as const,
      },
      registry,
    ),
    queueLag: histogram(
      {
        name: 'webhook_queue_lag_seconds',
        help: 'Event createdAt to its delivery row being inserted here (outbox, relay and queue together).',
        buckets: QUEUE_LAG_SECONDS_BUCKETS,
      },
      registry,
    ),
    deadLetters: counter(
      {
        name: 'webhook_dead_letters_total',
        help: 'Deliveries dead-lettered after their last attempt.',
      },
      registry,
    ),
    endpointFailing: counter(
      {
        name: 'webhook_endpoint_failing_alerts_total',
        help: 'Alerts raised for an endpoint failing consistently (consecutive failures across deliveries).',
      },
      registry,
    ),
    inFlight: gauge(
      {
        name: 'webhook_in_flight',
        help: 'Attempts in flight on this replica, per partner endpoint.',
        labelNames: ['partner_id'] as const,
      },
      registry,
    ),
    leasesReclaimed: counter(
      {
        name: 'webhook_leases_reclaimed_total',
        help: 'Deliveries whose lease ran out (their replica died or stalled) made claimable again.',
      },
      registry,
    ),
    overdue: gauge(
      {
        name: 'webhook_deliveries_overdue',
        help: 'Pending deliveries due for longer than the overdue threshold, at the last reconciliation.',
      },
      registry,
    ),
    feedUnpositioned: gauge(
      {
        name: 'webhook_feed_unpositioned_events',
        help: `Events recorded but not yet given their place in the events feed (partners cannot page to them yet), at the last reconciliation; counted up to ${UNPOSITIONED_COUNTED_MAX}.`,
      },
      registry,
    ),
    feedUnpositionedAge: gauge(
      {
        name: 'webhook_feed_unpositioned_oldest_age_seconds',
        help: 'How long the oldest event without a feed position has waited for one, at the last reconciliation; 0 when none waits.',
      },
      registry,
    ),
    replayed: counter(
      {
        name: 'webhook_replays_total',
        help: 'Deliveries re-opened by an operator replay.',
      },
      registry,
    ),
  };
}

export class DeliveryMetrics {
  private readonly families: ReturnType<typeof deliveryFamilies>;
  private readonly inFlightCounts = new Map<string, number>();
  /** The delivery scheduler and the reconciler report as the platform's other workers do. */
  readonly scheduler: WorkerMetrics;
  readonly reconciler: WorkerMetrics;

  /** On the process's registry; a test passes a registry of its own. */
  constructor(readonly registry: Registry = metricsRegistry) {
    this.families = deliveryFamilies(registry);
    this.scheduler = new WorkerMetrics('webhook_delivery', registry);
    this.reconciler = new WorkerMetrics('delivery_reconciler', registry);
  }

  attemptFinished(outcome: AttemptOutcome, errorClass: ErrorClass | null, latencyMs: number): void {
    this.families.attempts.inc({ outcome, error_class: errorClass ?? 'none' });
    this.families.attemptSeconds.observe(
      { result: errorClass === null ? 'success' : 'failure' },
      latencyMs / MS_PER_SECOND,
    );
    if (outcome === 'dead') this.families.deadLetters.inc();
  }

  eventAccepted(outcome: AcceptOutcomeLabel, eventCreatedAt: string, nowMs: number): void {
    this.families.accepted.inc({ outcome });
    const createdMs = Date.parse(eventCreatedAt);
    if (outcome !== 'duplicate' && Number.isFinite(createdMs))
      this.families.queueLag.observe(Math.max(0, nowMs - createdMs) / MS_PER_SECOND);
  }

  endpointFailingAlert(): void {
    this.families.endpointFailing.inc();
  }

  attemptStarted(partnerId: string): void {
    const count = (this.inFlightCounts.get(partnerId) ?? 0) + 1;
    this.inFlightCounts.set(partnerId, count);
    this.families.inFlight.set({ partner_id: partnerId }, count);
  }

  attemptEnded(partnerId: string): void {
    const count = (this.inFlightCounts.get(partnerId) ?? 1) - 1;
    if (count > 0) {
      this.inFlightCounts.set(partnerId, count);
      this.families.inFlight.set({ partner_id: partnerId }, count);
      return;
    }
    // Dropping the series keeps the label set to partners with work in flight now.
    this.inFlightCounts.delete(partnerId);
    this.families.inFlight.remove({ partner_id: partnerId });
  }

  leasesReleased(count: number): void {
    this.families.leasesReclaimed.inc(count);
  }

  overdueObserved(count: number): void {
    this.families.overdue.set(count);
  }

  feedBacklogObserved(count: number, oldestAgeSeconds: number): void {
    this.families.feedUnpositioned.set(count);
    this.families.feedUnpositionedAge.set(oldestAgeSeconds);
  }

  deliveriesReplayed(count: number): void {
    this.families.replayed.inc(count);
  }
}
