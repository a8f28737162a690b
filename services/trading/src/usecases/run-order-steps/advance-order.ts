/**
 * The next step of one due order, by side, mode and status:
 * - debit-first buy, debit pending or ambiguous: reconcile from the bank's
 *   record (debited → funds confirmed; not debited → rejected, hold voided);
 * - debit-first buy, debit accepted: settle (post the hold in one entry);
 * - an unfunded order past its window: expired.
 */

import type { Logger } from '@platform/logger';
import { Big, formatAmount } from '@platform/money';
import type { DataSource } from '@platform/persistence';
import type { KesDebitBank } from '../../adapters/bank/kes-debit-bank';
import type { Clock } from '../../domain/clock';
import { orderHoldOwner } from '../../domain/hold-owner';
import type { OrderRecord } from '../../domain/order';
import { isRefusal, LedgerApi, recordTransition, ServiceAccounts } from '../order-support';
import type { OrderStep } from './order-scheduler';

export interface AdvanceOrderDependencies {
  dataSource: DataSource;
  ledger: LedgerApi;
  serviceAccounts: ServiceAccounts;
  bank: KesDebitBank;
  clock: Clock;
  logger: Logger;
  settlementDelayMs: number;
  onEvents: () => void;
  /** Steps of other order shapes (sell, pay-in) register here. */
  extraSteps?: OrderStep[];
}

export class AdvanceOrder implements OrderStep {
  constructor(private readonly deps: AdvanceOrderDependencies) {}

  async run(order: OrderRecord): Promise<void> {
    if (order.side === 'buy' && order.fundingMode === 'debit_first' && order.status === 'funds_reserved') return this.debitFirst(order);
    for (const step of this.deps.extraSteps ?? []) await step.run(order);
  }

  private async debitFirst(order: OrderRecord): Promise<void> {
    if (order.debitOutcome === 'accepted') return this.settle(order);
    return this.reconcile(order);
  }

  /** The bank's record decides an unanswered or ambiguous debit. */
  private async reconcile(order: OrderRecord): Promise<void> {
    const record = await this.deps.bank.lookup({ orderId: order.orderId, amountKes: order.kesTotalAmount });
    if (record === 'not_debited') return this.reject(order, 'KES_DEBIT_FAILED');
    const now = this.deps.clock.now();
    await recordTransition(
      this.deps.dataSource,
      order,
      { from: 'funds_reserved', fromDebitOutcome: order.debitOutcome, changes: { debitOutcome: 'accepted', fundsConfirmedAt: now, nextActionAt: new Date(now.getTime() + this.deps.settlementDelayMs) }, event: 'order.funds_confirmed' },
      this.deps.onEvents,
    );
    this.deps.logger.info('ambiguous KES debit reconciled as debited', { orderId: order.orderId });
  }

  /** Nothing was taken: the hold is voided and the order rejected. */
  private async reject(order: OrderRecord, code: 'KES_DEBIT_FAILED' | 'INSUFFICIENT_KES_BALANCE'): Promise<void> {
    await this.deps.ledger.voidHold({ holdId: order.orderId }).catch((error) => {
      if (!isRefusal(error, 'LEDGER_HOLD_NOT_FOUND')) throw error;
    });
    await recordTransition(
      this.deps.dataSource,
      order,
      {
        from: 'funds_reserved',
        changes: { status: 'rejected', debitOutcome: 'refused', kesDebitStatus: 'released', refusalCode: order.refusalCode ?? code, nextActionAt: null, completedAt: this.deps.clock.now() },
        event: 'order.rejected',
        releaseCap: true,
      },
      this.deps.onEvents,
    );
  }

  /**
   * ONE balanced entry: partner KES −kesTotal, treasury KES +kesAmount, fee
   * revenue KES +fee; treasury USDT −usdt, partner USDT +usdt (a debit-first
   * buy credits the custodial USDT balance).
   */
  private async settle(order: OrderRecord): Promise<void> {
    const accounts = await this.deps.ledger.getPartnerAccounts({ partnerId: order.partnerId });
    if (!(await this.ensureHold(order, accounts.kesAccountId))) return;
    const [treasuryKes, feeRevenueKes, treasuryUsdt] = await Promise.all([
      this.deps.serviceAccounts.id('treasury', 'KES'),
      this.deps.serviceAccounts.id('fee_revenue', 'KES'),
      this.deps.serviceAccounts.id('treasury', 'USDT'),
    ]);
    const usdt = formatAmount(new Big(order.usdtAmount), 'USDT');
    const counterPostings = [
      { accountId: treasuryKes, amount: formatAmount(new Big(order.kesAmount), 'KES') },
      ...(new Big(order.feeKes).gt(0) ? [{ accountId: feeRevenueKes, amount: formatAmount(new Big(order.feeKes), 'KES') }] : []),
      { accountId: treasuryUsdt, amount: `-${usdt}` },
      { accountId: accounts.usdtAccountId, amount: usdt },
    ];
    await this.deps.ledger.postHold({
      holdId: order.orderId,
      postAmount: formatAmount(new Big(order.kesTotalAmount), 'KES'),
      counterPostings,
      kind: 'order_buy_settlement',
      metadata: { orderId: order.orderId },
    });
    await recordTransition(
      this.deps.dataSource,
      order,
      { from: 'funds_reserved', changes: { status: 'settled', kesDebitStatus: 'debited', nextActionAt: null, completedAt: this.deps.clock.now() }, event: 'order.settled' },
      this.deps.onEvents,
    );
  }

  /** Places the hold should the create have stopped before it (same id, same body: the original answers). */
  private async ensureHold(order: OrderRecord, kesAccountId: string): Promise<boolean> {
    try {
      await this.deps.ledger.placeHold({ holdId: order.orderId, accountId: kesAccountId, amount: order.kesTotalAmount, metadata: { orderId: order.orderId, kind: 'order_buy' }, owner: orderHoldOwner(order.orderId) });
      return true;
    } catch (error) {
      if (!isRefusal(error, 'LEDGER_INSUFFICIENT_FUNDS')) throw error;
      await this.reject(order, 'INSUFFICIENT_KES_BALANCE');
      return false;
    }
  }
}

