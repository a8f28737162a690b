/**
 * The durable order timer: every replica polls for orders whose
 * next_action_at has passed, claims a bounded batch (FOR UPDATE SKIP LOCKED,
 * leased by moving the timer ahead) and runs each one's next step. A replica
 * that dies mid-step leaves the order to be retaken when the lease passes;
 * every step is safe to run again (ledger ids are the order id, transitions
 * compare-and-set on the status).
 */
import type { Logger } from '@platform/logger';
import type { DataSource } from '@platform/persistence';
import { withTransaction } from '@platform/persistence';
import type { OrderRecord } from '../../domain/order';
import { claimDueOrders } from '../../persistence/orders.repository';

export interface OrderStep {
  run(order: OrderRecord): Promise<void>;
}

export interface OrderSchedulerOptions {
  intervalMs: number;
  batchSize: number;
  leaseMs: number;
}

export class OrderScheduler {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;

  constructor(
    private readonly dataSource: DataSource,
    private readonly step: OrderStep,
    private readonly logger: Logger,
    private readonly options: OrderSchedulerOptions,
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

  /** One pass: claims a batch and runs it; answers how many orders it took. */
  async tick(): Promise<number> {
    const due = await withTransaction(this.dataSource, (manager) => claimDueOrders(manager, this.options.batchSize, this.options.leaseMs));
    for (const order of due) {
      try {
        await this.step.run(order);
      } catch (error) {
        // The lease brings it back; a persistent failure shows in the logs every lease.
        this.logger.error('order step failed; retried when its lease passes', { orderId: order.orderId, status: order.status, error });
      }
    }
    return due.length;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick()
        .catch((error) => this.logger.error('order scheduler pass failed', { error }))
        .then((taken) => {
          // A full batch means more are due: go again at once.
          if (taken === this.options.batchSize) setImmediate(() => this.schedule());
          else this.schedule();
        });
    }, this.options.intervalMs);
  }
}
