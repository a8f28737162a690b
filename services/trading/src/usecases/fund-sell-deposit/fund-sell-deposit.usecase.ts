/**
 * A deposit-mode sell order takes its deposit (matched by hash when the ledger
 * offers it, or claimed from the ledger when the hash is attached after it
 * arrived). Deposit amount against the order's usdtAmount (documented for
 * partners): at least usdtAmount confirms the funds (any excess is credited to
 * the partner's USDT balance when the order settles); less rejects the order,
 * and the scheduler credits the whole deposit back to the USDT balance.
 */
import { Big, formatAmount } from '@platform/money';
import type { Clock } from '../../domain/clock';
import type { OrderRecord } from '../../domain/order';
import type { OrdersRepository } from '../../persistence/orders.repository';
import type { OrderTransitions } from '../order-support';

export interface FundSellDepositDependencies {
  orders: Pick<OrdersRepository, 'find'>;
  transitions: Pick<OrderTransitions, 'record'>;
  clock: Clock;
}

export class FundSellDepositUseCase {
  constructor(private readonly deps: FundSellDepositDependencies) {}

  /** The order as it stands afterwards (another step may have moved it first). */
  async execute(order: OrderRecord, depositUsdtAmount: string): Promise<OrderRecord> {
    const deposit = formatAmount(new Big(depositUsdtAmount), 'USDT');
    const now = this.deps.clock.now();
    const enough = new Big(deposit).gte(order.usdtAmount);
    const updated = await this.deps.transitions.record(
      order,
      enough
        ? {
            from: 'awaiting_usdt',
            changes: { status: 'funds_reserved', depositUsdtAmount: deposit, fundsConfirmedAt: now, nextActionAt: now },
            event: 'order.funds_confirmed',
          }
        : {
            from: 'awaiting_usdt',
            changes: { status: 'rejected', depositUsdtAmount: deposit, nextActionAt: now, completedAt: now },
            event: 'order.rejected',
            releaseCap: true,
          },
    );
    // Only when the compare-and-set lost: the order is read to answer where it went.
    return updated ?? (await this.deps.orders.find(order.orderId)) ?? order;
  }
}
