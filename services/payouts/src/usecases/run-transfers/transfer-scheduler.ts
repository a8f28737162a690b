/**
 * The durable transfer timer (the pattern of trading's order scheduler):
 * every replica polls for transfers whose next_action_at has passed, claims
 * a bounded batch (FOR UPDATE SKIP LOCKED, leased by moving the timer ahead)
 * and runs each one's step. A replica that dies mid-step leaves the transfer
 * to be retaken when the lease passes; every step is safe to run again.
 */
import type { Logger } from '@platform/logger';
import type { DataSource } from '@platform/persistence';
import { withTransaction } from '@platform/persistence';
import type { TransfersRepository } from '../../persistence/transfers.repository';
import type { TransferSteps } from './transfer-steps';

export interface TransferSchedulerOptions {
  intervalMs: number;
  batchSize: number;
  leaseMs: number;
}

export class TransferScheduler {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;

  constructor(
    private readonly dataSource: DataSource,
    private readonly transfers: TransfersRepository,
    private readonly steps: TransferSteps,
    private readonly logger: Logger,
    private readonly options: TransferSchedulerOptions,
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
    const due = await withTransaction(this.dataSource, (manager) => this.transfers.claimDue(manager, this.options.batchSize, this.options.leaseMs));
    for (const transfer of due) {
      try {
        await this.steps.run(transfer);
      } catch (error) {
        // The lease brings it back; a persistent failure shows in the logs every lease.
        this.logger.error('transfer step failed; retried when its lease passes', { transferId: transfer.transferId, status: transfer.status, error });
      }
    }
    return due.length;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick()
        .catch((error) => this.logger.error('transfer scheduler pass failed', { error }))
        .then((taken) => {
          this.running = null;
          if (taken === this.options.batchSize) setImmediate(() => this.schedule());
          else this.schedule();
        });
    }, this.options.intervalMs);
  }
}
