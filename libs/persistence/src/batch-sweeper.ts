/**
 * Runs in every replica: every `intervalMs` it runs a bounded batch task until
 * a batch comes back short. The ledger's tasks (expire overdue holds, credit
 * held deposits whose window passed) have database rows as their timers and
 * claim them FOR UPDATE SKIP LOCKED, so replicas never collide; the hold
 * owners' reconcilers (payouts, trading) page through their pending holds and
 * act only through idempotent ledger calls. Nothing is lost when a replica
 * stops: another (or the next start) picks the work up. Each sweeper reports
 * as a worker (@platform/metrics WorkerMetrics): rows handled, failed sweeps,
 * sweep durations, and, where its work is rows of its own database, their
 * number and lag. It runs on the shared WorkLoop: kick, readiness gate (a
 * sweep whose work needs a peer skips while the peer looks unreachable),
 * backoff after a sweep that met an unavailable dependency (not counted as a
 * failure: the rows were never leased, nothing waits on them), and a bounded
 * drain at stop (between batches the sweep stops at once).
 */
import type { Logger } from '@platform/logger';
import type { DueBacklog } from '@platform/metrics';
import { MeteredWorker } from './metered-worker';
import { isUnavailable, PassOutcome, ReadinessGate } from './work-loop';

export interface BatchSweeperOptions {
  intervalMs: number;
  batchSize: number;
  /** How long stop() waits for the batch in flight; default DRAIN_MS_DEFAULT. */
  drainMs?: number;
  /** True while what the task needs looks reachable (cheap, no network); sweeps nothing otherwise. */
  ready?: ReadinessGate;
}

/** Batches per tick at most, so one tick cannot run unbounded behind a backlog. */
const BATCHES_PER_TICK_MAX = 20;

/** The task: handle at most `batchSize` due rows; answer how many. */
export type BatchTask = (batchSize: number) => Promise<number>;

/** The sweeper as a worker: its `worker` label and, when its work is rows of its own database, how to measure them. */
export interface SweptRows {
  worker: string;
  measureDue?: () => Promise<DueBacklog>;
}

export class BatchSweeper extends MeteredWorker {
  constructor(
    private readonly what: string,
    private readonly task: BatchTask,
    private readonly logger: Logger,
    private readonly options: BatchSweeperOptions,
    private readonly swept: SweptRows,
  ) {
    super(swept.worker, logger, {
      name: what,
      intervalMs: options.intervalMs,
      drainMs: options.drainMs,
      ready: options.ready,
    });
  }

  protected dueProbe(): (() => Promise<DueBacklog>) | undefined {
    return this.swept.measureDue;
  }

  protected async pass(): Promise<PassOutcome> {
    try {
      return await this.metrics.pass(async () => {
        try {
          await this.batches();
          return 'idle' as const;
        } catch (error) {
          if (!isUnavailable(error)) throw error;
          this.logger.warn(`${this.what} sweep met an unavailable dependency; backing off`, {
            error: (error as Error).message,
          });
          return 'unavailable' as const;
        }
      });
    } catch (error) {
      this.logger.error(`${this.what} sweep failed; retrying next tick`, { error });
      return 'idle';
    }
  }

  private async batches(): Promise<void> {
    for (let batch = 0; batch < BATCHES_PER_TICK_MAX && !this.loop.stopping; batch += 1) {
      const handled = await this.task(this.options.batchSize);
      this.metrics.claimed(handled);
      if (handled > 0) this.logger.info(`${this.what} swept`, { count: handled });
      if (handled < this.options.batchSize) return;
    }
  }
}
