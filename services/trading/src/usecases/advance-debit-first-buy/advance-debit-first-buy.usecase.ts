/**
 * The scheduled step of a debit-first buy holding its funds:
 * - debit pending or ambiguous: the bank's record decides (debited → funds
 *   confirmed; not debited → rejected, hold voided, cap given back);
 * - debit accepted: settle, posting the hold in ONE balanced entry.
 */
import type { Logger } from '@platform/logger';
import { Big, formatAmount } from '@platform/money';
import type { KesDebitBank } from '../../adapters/bank/kes-debit-bank';
import type { Clock } from '../../domain/clock';
import { orderHoldOwner } from '../../domain/hold-owner';
import type { OrderRecord } from '../../domain/order';
import { isRefusal, OrderTransitions, PartnerAccountIds, ServiceAccounts } from '../order-support';
import type { LedgerApi } from '../../adapters/peers/peers';

export interface AdvanceDebitFirstBuyDependencies {
  ledger: Pick<LedgerApi, 'placeHold' | 'postHold' | 'voidHold'>;
  serviceAccounts: ServiceAccounts;
  accountIds: PartnerAccountIds;
  transitions: OrderTransitions;
  bank: KesDebitBank;
  clock: Clock;
  logger: Logger;
  settlementDelayMs: number;
}

export class AdvanceDebitFirstBuyUseCase {
  constructor(private readonly deps: AdvanceDebitFirstBuyDependencies) {}

  async execute(order: OrderRecord): Promise<void> {
    if (order.status !== 'funds_reserved') return;
    if (order.debitOutcome === 'accepted') return this.settle(order);
    return this.reconcile(order);
  }

  /** The bank's record decides an unanswered or ambiguous debit. */
  private async reconcile(order: OrderRecord): Promise<void> {
    const record = await this.deps.bank.lookup({ orderId: order.orderId, amountKes: order.kesTotalAmount });
    if (record === 'not_debited') return this.reject(order, 'KES_DEBIT_FAILED');
    const now = this.deps.clock.now();
    await this.deps.transitions.record(order, {
      from: 'funds_reserved',
      fromDebitOutcome: order.debitOutcome,
      changes: {
        debitOutcome: 'accepted',
        fundsConfirmedAt: now,
        nextActionAt: new Date(now.getTime() + this.deps.settlementDelayMs),
      },
      event: 'order.funds_confirmed',
    });
    this.deps.logger.info('ambiguous KES debit reconciled as debited', { orderId: order.orderId });
  }

  /** Nothing was taken: the hold is voided and the order rejected. */
  private async reject(order: OrderRecord, code: 'KES_DEBIT_FAILED' | 'INSUFFICIENT_KES_BALANCE'): Promise<void> {
    await this.deps.ledger.voidHold({ holdId: order.orderId }).catch((error) => {
      if (!isRefusal(error, 'LEDGER_HOLD_NOT_FOUND')) throw error;
    });
    await this.deps.transitions.record(order, {
      from: 'funds_reserved',
      changes: {
        status: 'rejected',
        debitOutcome: 'refused',
        kesDebitStatus: 'released',
        refusalCode: order.refusalCode ?? code,
        nextActionAt: null,
        completedAt: this.deps.clock.now(),
      },
      event: 'order.rejected',
      releaseCap: true,
    });
  }

  /**
   * ONE balanced entry: partner KES −kesTotal, treasury KES +kesAmount, fee
   * revenue KES +fee; treasury USDT −usdt, partner USDT +usdt (a debit-first
   * buy credits the custodial USDT balance).
   */
  private async settle(order: OrderRecord): Promise<void> {
    const accounts = await this.deps.accountIds.of(order.partnerId);
    if (!(await this.postHold(order, accounts.usdtAccountId))) {
      // The create stopped before its hold (the bank's record said debited): place it now, then post it.
      if (!(await this.placeHold(order, accounts.kesAccountId))) return;
      await this.postHold(order, accounts.usdtAccountId, { holdPlaced: true });
    }
    await this.deps.transitions.record(order, {
      from: 'funds_reserved',
      changes: { status: 'settled', kesDebitStatus: 'debited', nextActionAt: null, completedAt: this.deps.clock.now() },
      event: 'order.settled',
    });
  }

  /** Posts the order's hold; false when the ledger has no such hold (unless it was just placed, which is a bug). */
  private async postHold(
    order: OrderRecord,
    usdtAccountId: string,
    options: { holdPlaced?: boolean } = {},
  ): Promise<boolean> {
    const [treasuryKes, feeRevenueKes, treasuryUsdt] = await Promise.all([
      this.deps.serviceAccounts.id('treasury', 'KES'),
      this.deps.serviceAccounts.id('fee_revenue', 'KES'),
      this.deps.serviceAccounts.id('treasury', 'USDT'),
    ]);
    const usdt = formatAmount(new Big(order.usdtAmount), 'USDT');
    const counterPostings = [
      { accountId: treasuryKes, amount: formatAmount(new Big(order.kesAmount), 'KES') },
      ...(new Big(order.feeKes).gt(0)
        ? [{ accountId: feeRevenueKes, amount: formatAmount(new Big(order.feeKes), 'KES') }]
        : []),
      { accountId: treasuryUsdt, amount: `-${usdt}` },
      { accountId: usdtAccountId, amount: usdt },
    ];
    try {
      await this.deps.ledger.postHold({
        holdId: order.orderId,
        postAmount: formatAmount(new Big(order.kesTotalAmount), 'KES'),
        counterPostings,
        kind: 'order_buy_settlement',
        metadata: { orderId: order.orderId },
      });
      return true;
    } catch (error) {
      if (options.holdPlaced || !isRefusal(error, 'LEDGER_HOLD_NOT_FOUND')) throw error;
      return false;
    }
  }

  /** Same id, same body as the create's: the original answers should it exist after all. */
  private async placeHold(order: OrderRecord, kesAccountId: string): Promise<boolean> {
    try {
      await this.deps.ledger.placeHold({
        holdId: order.orderId,
        accountId: kesAccountId,
        amount: order.kesTotalAmount,
        metadata: { orderId: order.orderId, kind: 'order_buy' },
        owner: orderHoldOwner(order.orderId),
      });
      return true;
    } catch (error) {
      if (!isRefusal(error, 'LEDGER_INSUFFICIENT_FUNDS')) throw error;
      await this.reject(order, 'INSUFFICIENT_KES_BALANCE');
      return false;
    }
  }
}
