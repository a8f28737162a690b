/**
 * The durable timer of the services' row-driven work (trading's orders;
 * payouts' transfers, USDT sends, batches and prompt credits): every replica
 * polls for rows whose timer has passed, claims a bounded batch (the caller's
 * claimDue: FOR UPDATE SKIP LOCKED, leased by moving the timer ahead) and runs
 * each one's step. A replica that dies mid-step leaves the row to be retaken
 * when the lease passes, so every step must be safe to run again. A full batch
 * means more are due: the next pass starts at once.
 */
import type { Logger } from '@platform/logger';
import type { DataSource, EntityManager } from 'typeorm';
import { withTransaction } from './index';

export interface DueWork<T> {
  /** What the logs call it ("order", "transfer", "usdt_send"). */
  name: string;
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

  constructor(
    private readonly dataSource: DataSource,
    private readonly work: DueWork<T>,
    private readonly logger: Logger,
    private readonly options: SchedulerOptions,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  async tick(): Promise<number> {
    const due = await withTransaction(this.dataSource, (manager) => this.work.claimDue(manager, this.options.batchSize, this.options.leaseMs));
    for (const item of due) {
      try {
        await this.work.run(item);
      } catch (error) {
        // The lease brings it back; a persistent failure shows in the logs every lease.
        this.logger.error(`${this.work.name} step failed; retried when its lease passes`, { id: this.work.idOf(item), error });
      }
    }
    return due.length;
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
