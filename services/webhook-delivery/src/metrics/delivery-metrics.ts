/**
 * Prometheus metrics of this replica, served on METRICS_PORT at /metrics.
 * Labels are bounded: outcomes and error classes are fixed sets, and the only
 * open-ended label is partner_id on the in-flight gauge, which is removed as
 * soon as the partner has nothing in flight here. Never URLs.
 */
import { createServer, Server } from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ErrorClass } from '../domain/attempt-outcome';

export type AttemptOutcome = 'delivered' | 'retry' | 'dead';
export type AcceptOutcomeLabel = 'created' | 'duplicate' | 'no_endpoint';

const ATTEMPT_SECONDS_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15];
const QUEUE_LAG_SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 60, 300, 3600];
const MS_PER_SECOND = 1_000;

export class DeliveryMetrics {
  readonly registry = new Registry();
  private readonly attempts = new Counter({
    name: 'webhook_attempts_total',
    help: 'Delivery attempts by what the delivery became (delivered, retry, dead) and error class (none on success).',
    labelNames: ['outcome', 'error_class'] as const,
    registers: [this.registry],
  });
  private readonly attemptSeconds = new Histogram({
    name: 'webhook_attempt_duration_seconds',
    help: 'Duration of one delivery attempt (DNS, connect, TLS, request, response head).',
    labelNames: ['result'] as const,
    buckets: ATTEMPT_SECONDS_BUCKETS,
    registers: [this.registry],
  });
  private readonly accepted = new Counter({
    name: 'webhook_events_accepted_total',
    help: 'Bus events turned into deliveries, by outcome (created, duplicate, no_endpoint).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly queueLag = new Histogram({
    name: 'webhook_queue_lag_seconds',
    help: 'Event createdAt to its delivery row being inserted here (outbox, relay and queue together).',
    buckets: QUEUE_LAG_SECONDS_BUCKETS,
    registers: [this.registry],
  });
  private readonly deadLetters = new Counter({
    name: 'webhook_dead_letters_total',
    help: 'Deliveries dead-lettered after their last attempt.',
    registers: [this.registry],
  });
  private readonly endpointFailing = new Counter({
    name: 'webhook_endpoint_failing_alerts_total',
    help: 'Alerts raised for an endpoint failing consistently (consecutive failures across deliveries).',
    registers: [this.registry],
  });
  private readonly inFlight = new Gauge({
    name: 'webhook_in_flight',
    help: 'Attempts in flight on this replica, per partner endpoint.',
    labelNames: ['partner_id'] as const,
    registers: [this.registry],
  });
  private readonly leasesReclaimed = new Counter({
    name: 'webhook_leases_reclaimed_total',
    help: 'Deliveries whose lease ran out (their replica died or stalled) made claimable again.',
    registers: [this.registry],
  });
  private readonly overdue = new Gauge({
    name: 'webhook_deliveries_overdue',
    help: 'Pending deliveries due for longer than the overdue threshold, at the last reconciliation.',
    registers: [this.registry],
  });
  private readonly replayed = new Counter({
    name: 'webhook_replays_total',
    help: 'Deliveries re-opened by an operator replay.',
    registers: [this.registry],
  });
  private readonly inFlightCounts = new Map<string, number>();

  constructor(collectDefaults = true) {
    if (collectDefaults) collectDefaultMetrics({ register: this.registry });
  }

  attemptFinished(outcome: AttemptOutcome, errorClass: ErrorClass | null, latencyMs: number): void {
    this.attempts.inc({ outcome, error_class: errorClass ?? 'none' });
    this.attemptSeconds.observe({ result: errorClass === null ? 'success' : 'failure' }, latencyMs / MS_PER_SECOND);
    if (outcome === 'dead') this.deadLetters.inc();
  }

  eventAccepted(outcome: AcceptOutcomeLabel, eventCreatedAt: string, nowMs: number): void {
    this.accepted.inc({ outcome });
    const createdMs = Date.parse(eventCreatedAt);
    if (outcome !== 'duplicate' && Number.isFinite(createdMs)) this.queueLag.observe(Math.max(0, nowMs - createdMs) / MS_PER_SECOND);
  }

  endpointFailingAlert(): void {
    this.endpointFailing.inc();
  }

  attemptStarted(partnerId: string): void {
    const count = (this.inFlightCounts.get(partnerId) ?? 0) + 1;
    this.inFlightCounts.set(partnerId, count);
    this.inFlight.set({ partner_id: partnerId }, count);
  }

  attemptEnded(partnerId: string): void {
    const count = (this.inFlightCounts.get(partnerId) ?? 1) - 1;
    if (count > 0) {
      this.inFlightCounts.set(partnerId, count);
      this.inFlight.set({ partner_id: partnerId }, count);
      return;
    }
    // Dropping the series keeps the label set to partners with work in flight now.
    this.inFlightCounts.delete(partnerId);
    this.inFlight.remove({ partner_id: partnerId });
  }

  leasesReleased(count: number): void {
    this.leasesReclaimed.inc(count);
  }

  overdueObserved(count: number): void {
    this.overdue.set(count);
  }

  deliveriesReplayed(count: number): void {
    this.replayed.inc(count);
  }
}

/** Serves GET /metrics from the registry; anything else is 404. */
export async function startMetricsServer(metrics: DeliveryMetrics, port: number, host = '127.0.0.1'): Promise<Server> {
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url !== '/metrics') {
      response.writeHead(404).end();
      return;
    }
    metrics.registry.metrics().then(
      (text) => response.writeHead(200, { 'Content-Type': metrics.registry.contentType }).end(text),
      () => response.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return server;
}
