/**
 * The durable timer of the services' row-driven work (trading's orders;
 * payouts' transfers, USDT sends, batches and prompt credits): every replica
 * polls for rows whose timer has passed, claims a bounded batch (the caller's
 * claimDue: FOR UPDATE SKIP LOCKED, leased by moving the timer ahead) and runs
 * each one's step. A replica that dies mid-step leaves the row to be retaken
 * when the lease passes, so every step must be safe to run again. A full batch
 * means more are due: the next pass starts at once. Each scheduler reports as
 * a worker named like its work (@platform/metrics WorkerMetrics): claims,
 * failed steps and passes, pass durations, and its due rows and their lag.
 */
import type { Logger } from '@platform/logger';
import { WorkerMetrics } from '@platform/metrics';
import type { DataSource, EntityManager } from 'typeorm';
import { DueRows, dueRowsProbe } from './due-rows';
import { withTransaction } from './data-source';

export interface DueWork<T> {
  /** What the logs and the metrics' `worker` label call it ("order", "transfer", "usdt_send"). */
  name: string;
  /** Where its timers are, as claimDue reads them: measured for worker_due_rows and worker_lag_seconds. */
  dueRows: DueRows;
  claimDue(manager: EntityManager, limit: number, leaseMs: number): Promise<T[]>;
  idOf(item: T): string;
  run(item: T): Promise<void>;
}

export interface SchedulerOptions {
  intervalMs: number;
  batchSize: number;
  leaseMs: number;
}

export class DurableScheduler<T> {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  private readonly metrics: WorkerMetrics;
  private stopWatchingDue: (() => void) | null = null;

  constructor(
    private readonly dataSource: DataSource,
    private readonly work: DueWork<T>,
    private readonly logger: Logger,
    private readonly options: SchedulerOptions,
  ) {
    this.metrics = new WorkerMetrics(work.name);
  }

  start(): void {
    this.stopped = false;
    this.stopWatchingDue ??= this.metrics.watchDue(dueRowsProbe(this.dataSource, this.work.dueRows));
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopWatchingDue?.();
    this.stopWatchingDue = null;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  tick(): Promise<number> {
    return this.metrics.pass(async () => {
      const due = await withTransaction(this.dataSource, (manager) =>
        this.work.claimDue(manager, this.options.batchSize, this.options.leaseMs),
      );
      this.metrics.claimed(due.length);
      for (const item of due) {
        try {
          await this.work.run(item);
        } catch (error) {
          // The lease brings it back; a persistent failure shows in the logs every lease.
          this.metrics.failed();
          this.logger.error(`${this.work.name} step failed; retried when its lease passes`, {
            id: this.work.idOf(item),
            error,
          });
        }
      }
      return due.length;
    });
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick()
        .catch((error) => this.logger.error(`${this.work.name} scheduler pass failed`, { error }))
        .then((taken) => {
          this.running = null;
          if (taken === this.options.batchSize) setImmediate(() => this.schedule());
          else this.schedule();
        });
    }, this.options.intervalMs);
  }
}
