/**
 * Runs in every replica: claims due deliveries from the database and attempts
 * them, within two bounds: ATTEMPTS_IN_FLIGHT_MAX per replica, and
 * ENDPOINT_IN_FLIGHT_MAX per endpoint (counted from leased rows, so across
 * replicas), so a hanging endpoint holds a few slots and never starves others.
 *
 * The database row is the timer. The loop looks for due rows every
 * SCHEDULER_POLL_MS, and at once when kicked (deliveries were just created or
 * released). Finished attempts free slots; they are refilled in batches: only
 * while due rows may remain (the last claim was full, was kicked since, or left
 * an endpoint at its cap), and once enough slots are free to make a batch (a
 * quarter of the replica's bound), so under load one claim statement serves many attempts and an idle
 * replica does not look again after each attempt. The poll claims whatever
 * room there is. Nothing is kept in memory that another replica would need: a
 * replica that dies leaves leases that run out, and the DeliveryReconciler
 * (any replica) makes those deliveries claimable again.
 *
 * Why this loop is not the shared DurableScheduler (@platform/persistence),
 * which runs a batch's steps one after another and passes when they are done:
 * deliveries are attempted concurrently, up to two bounds, and the claim is
 * refilled as attempts finish, so the loop is driven by free slots rather than
 * by passes. It keeps the primitive's contract otherwise: claims FOR UPDATE
 * SKIP LOCKED with a lease, is kicked awake, and stops by claiming nothing
 * more and draining what is in flight within a bound (then aborting, the
 * leases bringing the deliveries back). It has no readiness gate: what an
 * attempt needs is the partner's endpoint, and an endpoint that does not answer
 * is that delivery's recorded outcome (retried on its schedule), not a reason
 * for this replica to leave the shared work to another.
 */
import { setMaxListeners } from 'node:events';
import type { Logger } from '@platform/logger';
import type { DeliveryMetrics } from '../metrics/delivery-metrics';
import type { ClaimedDelivery, DeliveriesRepository } from '../persistence/deliveries.repository';
import type { AttemptDeliveryUseCase } from '../usecases/attempt-delivery/attempt-delivery.usecase';

export interface DeliverySchedulerOptions {
  pollIntervalMs: number;
  /** Rows claimed per query. */
  batchSize: number;
  attemptsInFlightMax: number;
  endpointInFlightMax: number;
  /** How long a claimed delivery stays ours before another replica may take it. */
  leaseMs: number;
}

const ERROR_BACKOFF_MS = 1_000;
/** Finished attempts refill slots once this share of the replica's bound is free. */
const REFILL_SHARE_OF_BOUND = 0.25;
/** After aborting unfinished attempts at shutdown, how long to let them unwind. */
const ABORT_SETTLE_MS = 1_000;
const DRAIN_POLL_MS = 25;

export class DeliveryScheduler {
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private kicked = false;
  /** Due rows may be waiting: the last claim was full, or new work was announced since. */
  private dueMayRemain = true;
  private readonly refillBatchMin: number;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly inFlightByPartner = new Map<string, number>();
  private readonly abort = new AbortController();

  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly attemptDelivery: AttemptDeliveryUseCase,
    private readonly logger: Logger,
    private readonly options: DeliverySchedulerOptions,
    private readonly metrics: DeliveryMetrics,
  ) {
    // Every attempt listens on the one shutdown signal.
    setMaxListeners(options.attemptsInFlightMax + 16, this.abort.signal);
    this.refillBatchMin = Math.max(
      1,
      Math.min(options.batchSize, Math.floor(options.attemptsInFlightMax * REFILL_SHARE_OF_BOUND)),
    );
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Deliveries became due (created, released): look now rather than at the next poll. */
  kick(): void {
    this.dueMayRemain = true;
    this.kicked = true;
    this.wake?.();
  }

  inFlightCount(): number {
    return this.inFlight.size;
  }

  /**
   * Stops claiming, lets attempts in flight finish within graceMs, then aborts
   * the rest. An aborted attempt is not recorded: its delivery keeps its lease
   * and is retried, with the same delivery id, once the lease runs out.
   */
  async stop(graceMs: number): Promise<void> {
    this.running = false;
    this.kick();
    await this.loop;
    if (await this.drain(graceMs)) return;
    this.logger.warn('attempts still in flight at shutdown; aborting them, their leases will expire', {
      count: this.inFlight.size,
    });
    this.abort.abort();
    await this.drain(ABORT_SETTLE_MS);
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        await this.metrics.scheduler.pass(() => this.claimOnce());
        // Keep claiming while due rows may remain and a batch's worth of room is free; otherwise wait for a kick or the poll.
        if (this.dueMayRemain && this.capacity() >= this.refillBatchMin) continue;
        await this.idle(this.options.pollIntervalMs);
      } catch (error) {
        this.logger.warn('claiming due deliveries failed; will retry', { error: (error as Error).message });
        await this.idle(ERROR_BACKOFF_MS);
      }
    }
  }

  private capacity(): number {
    return this.options.attemptsInFlightMax - this.inFlight.size;
  }

  private async claimOnce(): Promise<void> {
    this.kicked = false;
    const capacity = this.capacity();
    if (capacity <= 0) return;
    const limit = Math.min(this.options.batchSize, capacity);
    const claimed = await this.deliveries.claimDue({
      limit,
      endpointInFlightMax: this.options.endpointInFlightMax,
      leaseMs: this.options.leaseMs,
    });
    this.metrics.scheduler.claimed(claimed.length);
    for (const delivery of claimed) this.track(delivery);
    // More may be due: the claim was full, a kick came while claiming, or an endpoint it served is
    // now at its cap here (its other due rows wait for one of these attempts to finish).
    this.dueMayRemain =
      claimed.length === limit ||
      this.kicked ||
      claimed.some(
        (delivery) => (this.inFlightByPartner.get(delivery.partnerId) ?? 0) >= this.options.endpointInFlightMax,
      );
  }

  private track(delivery: ClaimedDelivery): void {
    this.metrics.attemptStarted(delivery.partnerId);
    this.inFlightByPartner.set(delivery.partnerId, (this.inFlightByPartner.get(delivery.partnerId) ?? 0) + 1);
    const task: Promise<void> = this.attemptDelivery
      .execute(delivery, this.abort.signal)
      .then(
        () => undefined,
        (error: unknown) => {
          this.logger.error('delivery attempt failed unexpectedly; its lease will expire and it will be retried', {
            deliveryId: delivery.deliveryId,
            error,
          });
        },
      )
      .finally(() => {
        this.metrics.attemptEnded(delivery.partnerId);
        this.inFlight.delete(task);
        this.attemptEnded(delivery.partnerId);
      });
    this.inFlight.add(task);
  }

  /**
   * A slot is free: look again when due rows may remain (an endpoint at its cap
   * here may have rows held back by it) and a batch's worth of room is free,
   * or nothing is in flight.
   */
  private attemptEnded(partnerId: string): void {
    const partnerInFlight = this.inFlightByPartner.get(partnerId) ?? 1;
    if (partnerInFlight <= 1) this.inFlightByPartner.delete(partnerId);
    else this.inFlightByPartner.set(partnerId, partnerInFlight - 1);
    if (partnerInFlight >= this.options.endpointInFlightMax) this.dueMayRemain = true;
    if (!this.running || !this.dueMayRemain) return;
    if (this.capacity() >= this.refillBatchMin || this.inFlight.size === 0) {
      this.kicked = true;
      this.wake?.();
    }
  }

  private idle(ms: number): Promise<void> {
    if (this.kicked || !this.running) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  /** True when every attempt in flight finished within ms. */
  private async drain(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (this.inFlight.size > 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
    return this.inFlight.size === 0;
  }
}
