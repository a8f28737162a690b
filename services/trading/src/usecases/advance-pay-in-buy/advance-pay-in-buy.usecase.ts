/**
 * The scheduled steps of a pay-in buy. awaiting_payment: the ledger's credits
 * that carried the order's reference are looked at (rules in domain/pay-in.ts);
 * the funding one is held on the partner's KES account (hold id = order id)
 * and the order moves to funds_reserved with its payment block and
 * order.funds_confirmed; unpaid at payBefore → expired (cap given back).
 * funds_reserved: the wallet is checked again; no longer active → rejected
 * (hold voided, the money stays in the KES balance); active → ONE entry posting
 * the hold: partner KES −kesTotal, treasury KES +kesAmount, fee revenue KES
 * +fee, treasury USDT −usdt, chain clearing USDT +usdt (handed to the chain
 * custodian for the wallet) → settled.
 */
import type { Logger } from '@platform/logger';
import { Big, formatAmount } from '@platform/money';
import type { Clock } from '../../domain/clock';
import { orderHoldOwner } from '../../domain/hold-owner';
import type { OrderRecord } from '../../domain/order';
import { fundingCredit, nextPaymentCheck, ReferencedCredit } from '../../domain/pay-in';
import { isRefusal, OrderTransitions, PartnerAccountIds, ServiceAccounts } from '../order-support';
import type { LedgerApi } from '../../adapters/peers/peers';
import type { WalletRegistryApi } from '../../adapters/peers/peers';

export interface AdvancePayInBuyDependencies {
  ledger: Pick<LedgerApi, 'listCreditsByReference' | 'placeHold' | 'getHold' | 'postHold' | 'voidHold'>;
  walletRegistry: WalletRegistryApi;
  serviceAccounts: ServiceAccounts;
  accountIds: PartnerAccountIds;
  transitions: OrderTransitions;
  clock: Clock;
  logger: Logger;
  /** How soon an awaiting order's payment is looked for again. */
  paymentPollMs: number;
  /** When a funded order settles (already scaled). */
  settlementDelayMs: number;
}

export class AdvancePayInBuyUseCase {
  constructor(private readonly deps: AdvancePayInBuyDependencies) {}

  async execute(order: OrderRecord): Promise<void> {
    if (order.status === 'awaiting_payment') return this.lookForPayment(order);
    if (order.status === 'funds_reserved') return this.deliver(order);
  }

  private async lookForPayment(order: OrderRecord): Promise<void> {
    const payBefore = new Date(order.payBefore!);
    const { credits } = await this.deps.ledger.listCreditsByReference({
      partnerId: order.partnerId,
      reference: order.paymentReference!,
    });
    const referenced: ReferencedCredit[] = credits.map((credit) => ({
      bankTransactionId: credit.bankTransactionId ?? '',
      railReference: credit.railReference ?? null,
      amountKes: credit.amount?.value ?? '0',
      receivedAt: credit.receivedAt,
    }));
    const credit = fundingCredit(referenced, order.kesTotalAmount, payBefore);
    if (credit && (await this.holdPayment(order))) return this.confirmFunds(order, credit);
    const now = this.deps.clock.now();
    if (now.getTime() >= payBefore.getTime()) return this.expire(order);
    await this.deps.transitions.record(order, {
      from: 'awaiting_payment',
      changes: { nextActionAt: nextPaymentCheck(now, this.deps.paymentPollMs, payBefore) },
    });
  }

  /** The funding payment is in the partner's KES balance: hold the order's total on it (same id, same body: safe to repeat). */
  private async holdPayment(order: OrderRecord): Promise<boolean> {
    const accounts = await this.deps.accountIds.of(order.partnerId);
    try {
      await this.deps.ledger.placeHold({
        holdId: order.orderId,
        accountId: accounts.kesAccountId,
        amount: order.kesTotalAmount,
        metadata: { orderId: order.orderId, kind: 'order_buy_pay_in' },
        owner: orderHoldOwner(order.orderId),
      });
      return true;
    } catch (error) {
      if (!isRefusal(error, 'LEDGER_INSUFFICIENT_FUNDS')) throw error;
      // The partner spent the payment (transfers, debit-first buys) before it could be held: it no longer funds the order.
      this.deps.logger.warn('pay-in payment arrived but the KES balance no longer covers the order', {
        orderId: order.orderId,
      });
      return false;
    }
  }

  private async confirmFunds(order: OrderRecord, credit: ReferencedCredit): Promise<void> {
    const now = this.deps.clock.now();
    await this.deps.transitions.record(order, {
      from: 'awaiting_payment',
      changes: {
        status: 'funds_reserved',
        kesDebitStatus: 'reserved',
        fundsConfirmedAt: now,
        nextActionAt: new Date(now.getTime() + this.deps.settlementDelayMs),
        paymentBankTransactionId: credit.bankTransactionId,
        paymentRailReference: credit.railReference ?? '',
        paymentMatchedAt: now,
        paymentKesAmount: credit.amountKes,
      },
      event: 'order.funds_confirmed',
    });
  }

  private async expire(order: OrderRecord): Promise<void> {
    await this.deps.transitions.record(order, {
      from: 'awaiting_payment',
      changes: { status: 'expired', nextActionAt: null, completedAt: this.deps.clock.now() },
      event: 'order.expired',
      releaseCap: true,
    });
  }

  /**
   * The wallet is checked again at release: only an active wallet may receive
   * value. A step cut short after the ledger resolved the hold finishes the
   * way the hold went (posted → settled, voided → rejected), never the other.
   */
  private async deliver(order: OrderRecord): Promise<void> {
    const hold = await this.deps.ledger.getHold({ holdId: order.orderId });
    if (hold.status === 'posted') return this.markSettled(order);
    if (hold.status === 'voided') return this.markRejected(order);
    if (!(await this.walletStillActive(order))) return this.reject(order);
    const [treasuryKes, feeRevenueKes, treasuryUsdt, chainClearingUsdt] = await Promise.all([
      this.deps.serviceAccounts.id('treasury', 'KES'),
      this.deps.serviceAccounts.id('fee_revenue', 'KES'),
      this.deps.serviceAccounts.id('treasury', 'USDT'),
      this.deps.serviceAccounts.id('chain_clearing', 'USDT'),
    ]);
    const usdt = formatAmount(new Big(order.usdtAmount), 'USDT');
    await this.deps.ledger.postHold({
      holdId: order.orderId,
      postAmount: formatAmount(new Big(order.kesTotalAmount), 'KES'),
      counterPostings: [
        { accountId: treasuryKes, amount: formatAmount(new Big(order.kesAmount), 'KES') },
        ...(new Big(order.feeKes).gt(0)
          ? [{ accountId: feeRevenueKes, amount: formatAmount(new Big(order.feeKes), 'KES') }]
          : []),
        { accountId: treasuryUsdt, amount: `-${usdt}` },
        { accountId: chainClearingUsdt, amount: usdt },
      ],
      kind: 'order_buy_pay_in_settlement',
      metadata: { orderId: order.orderId, walletId: order.walletId! },
    });
    await this.markSettled(order);
  }

  private async markSettled(order: OrderRecord): Promise<void> {
    await this.deps.transitions.record(order, {
      from: 'funds_reserved',
      changes: { status: 'settled', kesDebitStatus: 'debited', nextActionAt: null, completedAt: this.deps.clock.now() },
      event: 'order.settled',
    });
  }

  private async walletStillActive(order: OrderRecord): Promise<boolean> {
    try {
      return (await this.deps.walletRegistry.getWalletStatus({ partnerId: order.partnerId, walletId: order.walletId! }))
        .active;
    } catch (error) {
      if (isRefusal(error, 'WALLET_NOT_FOUND')) return false;
      throw error;
    }
  }

  /** Nothing leaves: the hold is voided, the payment stays in the partner's KES balance. */
  private async reject(order: OrderRecord): Promise<void> {
    await this.deps.ledger.voidHold({ holdId: order.orderId }).catch((error) => {
      if (!isRefusal(error, 'LEDGER_HOLD_NOT_FOUND')) throw error;
    });
    this.deps.logger.warn('pay-in buy rejected: its wallet is no longer active', { orderId: order.orderId });
    await this.markRejected(order);
  }

  private async markRejected(order: OrderRecord): Promise<void> {
    await this.deps.transitions.record(order, {
      from: 'funds_reserved',
      changes: {
        status: 'rejected',
        kesDebitStatus: 'released',
        nextActionAt: null,
        completedAt: this.deps.clock.now(),
      },
      event: 'order.rejected',
      releaseCap: true,
    });
  }
}
