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
 * number and lag.
 */
import type { Logger } from '@platform/logger';
import { DueBacklog, WorkerMetrics } from '@platform/metrics';

export interface BatchSweeperOptions {
  intervalMs: number;
  batchSize: number;
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

export class BatchSweeper {
  private timer: NodeJS.Timeout | null = null;
  private tick: Promise<void> = Promise.resolve();
  private running = false;
  private readonly metrics: WorkerMetrics;
  private stopWatchingDue: (() => void) | null = null;

  constructor(
    private readonly what: string,
    private readonly task: BatchTask,
    private readonly logger: Logger,
    private readonly options: BatchSweeperOptions,
    private readonly swept: SweptRows,
  ) {
    this.metrics = new WorkerMetrics(swept.worker);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.stopWatchingDue = this.swept.measureDue ? this.metrics.watchDue(this.swept.measureDue) : null;
    this.schedule();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.stopWatchingDue?.();
    if (this.timer) clearTimeout(this.timer);
    await this.tick;
  }

  private schedule(): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      this.tick = this.sweep().finally(() => this.schedule());
    }, this.options.intervalMs);
  }

  private async sweep(): Promise<void> {
    try {
      await this.metrics.pass(async () => {
        for (let batch = 0; batch < BATCHES_PER_TICK_MAX && this.running; batch += 1) {
          const handled = await this.task(this.options.batchSize);
          this.metrics.claimed(handled);
          if (handled > 0) this.logger.info(`${this.what} swept`, { count: handled });
          if (handled < this.options.batchSize) return;
        }
      });
    } catch (error) {
      this.logger.error(`${this.what} sweep failed; retrying next tick`, { error });
    }
  }
}
