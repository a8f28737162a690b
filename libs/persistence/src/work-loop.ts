/**
 * The one loop every background worker runs on: one pass at a time, the next
 * one after `intervalMs`, at once when the pass says more work waits or when
 * the worker is kicked (work was just created or released), later (doubling up
 * to `backoffMsMax`) after passes that met an unavailable dependency; a kick
 * does not cut that wait short, so a flapping peer is not hammered. Before
 * each pass the worker's readiness gate is asked (no network: a gRPC channel's
 * connectivity state, a breaker's state): while it is closed the pass is
 * skipped and the gate asked again after `intervalMs`, so a replica that cannot
 * reach what the work needs leaves the shared rows to replicas that can, and
 * claims again within an interval of its path coming back. stop() lets the pass in flight finish within a
 * bound; the pass sees `stopping` and hands back what it claimed but did not
 * start. DurableScheduler (claimed rows with a lease) and BatchSweeper (bounded
 * batch tasks) run on it, and so do the services' own workers.
 */
import { isAppError } from '@platform/errors';
import type { Logger } from '@platform/logger';

/** What a pass found: more work waits (next pass at once), none (next after the interval), or a dependency was unavailable (back off). */
export type PassOutcome = 'more' | 'idle' | 'unavailable';

/** True while the dependencies the work needs look reachable; must be cheap (no network round trip). */
export type ReadinessGate = () => boolean;

export interface WorkLoopOptions {
  /** What logs call the loop ("payout", "collection_credit"). */
  name: string;
  intervalMs: number;
  /** Longest wait after passes that met an unavailable dependency; default the larger of BACKOFF_MS_MAX_DEFAULT and intervalMs. */
  backoffMsMax?: number;
  /** How long stop() waits for the pass in flight; default DRAIN_MS_DEFAULT. */
  drainMs?: number;
  /** Skip passes while this answers false. */
  ready?: ReadinessGate;
}

/** Default bound on how long stop() waits for a pass in flight (below the default SHUTDOWN_GRACE_MS). */
export const DRAIN_MS_DEFAULT = 5_000;
export const BACKOFF_MS_MAX_DEFAULT = 10_000;
/** Exponent bound of the backoff doubling, so the arithmetic stays small whatever the streak. */
const BACKOFF_EXPONENT_MAX = 10;

/** Node's socket errors and gRPC's codes (UNAVAILABLE 14, DEADLINE_EXCEEDED 4) that mean a peer did not answer. */
const UNAVAILABLE_CODES = new Set<unknown>([14, 4, 'EOPENBREAKER', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT']);

/**
 * True when a step failed because something it needs did not answer: the
 * clients' SERVICE_UNAVAILABLE (transport failure, deadline, open breaker, or
 * the peer's own dependency down), or such a raw error from an adapter.
 */
export function isUnavailable(error: unknown): boolean {
  if (isAppError(error)) return error.code === 'SERVICE_UNAVAILABLE';
  return UNAVAILABLE_CODES.has((error as { code?: unknown } | null)?.code);
}

export class WorkLoop {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private started = false;
  private stopRequested = false;
  private kickedWhileRunning = false;
  private unavailableStreak = 0;
  private gateWasClosed = false;
  /** Waiting out a backoff: kicks are ignored (the pass at its end sees the work they announced). */
  private backingOff = false;

  constructor(
    private readonly pass: (loop: WorkLoop) => Promise<PassOutcome>,
    private readonly logger: Logger,
    private readonly options: WorkLoopOptions,
  ) {}

  /** True once stop() was called: a pass hands back claimed work it has not started. */
  get stopping(): boolean {
    return this.stopRequested;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.stopRequested = false;
    this.schedule(this.options.intervalMs);
  }

  /** Runs a pass soon: now when idle, right after the running pass otherwise (kicks coalesce). */
  kick(): void {
    if (!this.started || this.backingOff) return;
    if (this.running) {
      this.kickedWhileRunning = true;
      return;
    }
    this.schedule(0);
  }

  /**
   * Stops scheduling and waits for the pass in flight, at most `drainMs`.
   * True when it finished in time; otherwise its claimed rows keep their lease
   * and are taken again (by any replica) when it passes.
   */
  async stop(): Promise<boolean> {
    this.started = false;
    this.stopRequested = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.running) return true;
    const drainMs = this.options.drainMs ?? DRAIN_MS_DEFAULT;
    let bound: NodeJS.Timeout | undefined;
    const drained = await Promise.race([
      this.running.then(() => true),
      new Promise<boolean>((resolve) => (bound = setTimeout(() => resolve(false), drainMs))),
    ]);
    clearTimeout(bound);
    if (!drained)
      this.logger.warn(`${this.options.name} pass still running at shutdown; its leases will pass`, { drainMs });
    return drained;
  }

  /** One pass now, unless the gate is closed: what the timer runs, and what tests call. */
  async runOnce(): Promise<PassOutcome | 'gated'> {
    if (!this.gateOpen()) return 'gated';
    try {
      return await this.pass(this);
    } catch (error) {
      this.logger.error(`${this.options.name} pass failed; retried next interval`, { error });
      return 'idle';
    }
  }

  private gateOpen(): boolean {
    const open = this.options.ready?.() ?? true;
    if (open === this.gateWasClosed) {
      this.gateWasClosed = !open;
      const message = open ? 'dependencies reachable again; claiming' : 'a dependency is unreachable; not claiming';
      this.logger.warn(`${this.options.name}: ${message}`);
    }
    return open;
  }

  private schedule(delayMs: number): void {
    if (!this.started) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.backingOff = false;
      this.kickedWhileRunning = false;
      this.running = this.runOnce().then((outcome) => {
        this.running = null;
        const delayMs = this.delayAfter(outcome);
        this.backingOff = outcome === 'unavailable';
        this.schedule(this.kickedWhileRunning && !this.backingOff ? 0 : delayMs);
      });
    }, delayMs);
  }

  private delayAfter(outcome: PassOutcome | 'gated'): number {
    if (outcome === 'gated') return this.options.intervalMs;
    if (outcome !== 'unavailable') this.unavailableStreak = 0;
    if (outcome === 'more') return 0;
    if (outcome === 'idle') return this.options.intervalMs;
    this.unavailableStreak = Math.min(this.unavailableStreak + 1, BACKOFF_EXPONENT_MAX);
    const backoffMsMax = this.options.backoffMsMax ?? Math.max(BACKOFF_MS_MAX_DEFAULT, this.options.intervalMs);
    return Math.min(backoffMsMax, this.options.intervalMs * 2 ** (this.unavailableStreak - 1));
  }
}
