/**
 * The next step of one due order, by its kind: each kind's scheduled steps
 * are their own use case. Every step is safe to repeat (ledger ids are the
 * order id; transitions compare-and-set on the status).
 */
import type { OrderRecord } from '../../domain/order';

/** One step of a due order, run by the order worker (src/workers/order.worker.ts). */
export interface OrderStep {
  /** The orders one claim took, before their steps run one by one (a kind may serve several in one go). */
  claimed(orders: readonly OrderRecord[]): void;
  run(order: OrderRecord): Promise<void>;
}

export interface OrderStepsByKind {
  debitFirstBuy: { claimed(orders: readonly OrderRecord[]): void; execute(order: OrderRecord): Promise<void> };
  payInBuy: { execute(order: OrderRecord): Promise<void> };
  sell: { execute(order: OrderRecord): Promise<void> };
}

export class AdvanceOrder implements OrderStep {
  constructor(private readonly steps: OrderStepsByKind) {}

  claimed(orders: readonly OrderRecord[]): void {
    this.steps.debitFirstBuy.claimed(orders);
  }

  async run(order: OrderRecord): Promise<void> {
    if (order.side === 'sell') return this.steps.sell.execute(order);
    if (order.fundingMode === 'pay_in') return this.steps.payInBuy.execute(order);
    if (order.fundingMode === 'debit_first') return this.steps.debitFirstBuy.execute(order);
  }
}
