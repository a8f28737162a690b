/**
 * Pay-in buy orders (spec sections 2 to 4 and 6, contract decisions section 4):
 * the partner pays the order's kesTotalAmount into the paybill with the
 * order's own payment reference, and the bought USDT is delivered to the
 * partner's active wallet given at create.
 *
 * Create: `walletId` must be an active wallet of the partner; daily cap
 * reserved and quote consumed as for every order; a fresh payment reference is
 * registered with the ledger BEFORE the order is stored (so any payment made
 * with it always lands in the partner's KES account); 202 awaiting_payment
 * with paymentInstructions and payBefore.
 *
 * Steps (the durable order scheduler): awaiting_payment polls the ledger for
 * credits that carried the reference (rules in domain/pay-in.ts); the funding
 * one is held on the partner's KES account (hold id = order id) and the order
 * moves to funds_reserved with its payment block and order.funds_confirmed;
 * unpaid at payBefore → expired (cap released). funds_reserved re-checks the
 * wallet: revoked or no longer active → rejected (hold voided, the money stays
 * in the KES balance); active → ONE entry posting the hold: partner KES
 * −kesTotal, treasury KES +kesAmount, fee revenue KES +fee, treasury USDT
 * −usdt, chain clearing USDT +usdt (handed to the chain custodian for the
 * wallet) → settled.
 */
import { randomUUID } from 'node:crypto';
import { AppError, validationFailed } from '@platform/errors';
import type { PromiseClient } from '@platform/grpc';
import type { Logger } from '@platform/logger';
import { Big, formatAmount } from '@platform/money';
import type { DataSource } from '@platform/persistence';
import { withTransaction } from '@platform/persistence';
import type { walletRegistry } from '@platform/proto';
import type { Clock } from '../../domain/clock';
import { orderHoldOwner } from '../../domain/hold-owner';
import { capAmountKes, OrderRecord, PAY_IN_REQUEST_RAIL } from '../../domain/order';
import { fundingCredit, newPaymentReference, nextPaymentCheck, ReferencedCredit } from '../../domain/pay-in';
import { UUID_PATTERN } from '../../domain/partner-profile';
import { consumeQuote, findOrderByReference, insertOrder, lockPartnerReference, QuoteRecord, updateOrder } from '../../persistence/orders.repository';
import type { OrderResult } from '../create-buy-order/create-buy-order.usecase';
import { isRefusal, LedgerApi, recordTransition, ServiceAccounts } from '../order-support';
import { reserveInTransaction } from '../reserve-daily-cap/reserve-daily-cap.usecase';
import type { OrderStep } from '../run-order-steps/order-scheduler';

export type WalletRegistryApi = Pick<PromiseClient<typeof walletRegistry.WalletRegistryService>, 'getWalletStatus'>;

/** A freshly drawn reference colliding with a registered one is astronomically rare; a few draws, then a bug. */
const REFERENCE_DRAWS_MAX = 3;

export interface PayInBuyOrdersDependencies {
  dataSource: DataSource;
  ledger: LedgerApi;
  walletRegistry: WalletRegistryApi;
  serviceAccounts: ServiceAccounts;
  clock: Clock;
  logger: Logger;
  /** How long the partner has to pay (already scaled). */
  payWindowMs: number;
  /** How soon an awaiting order's payment is looked for again. */
  paymentPollMs: number;
  /** When a funded order settles (already scaled). */
  settlementDelayMs: number;
  /** Delivery to a wallet goes through the chain custodian: `none` refuses pay-in buys (BRIDGE_NOT_CONFIGURED). */
  usdtCustody: 'sandbox' | 'none';
  onEvents: () => void;
}

export interface PayInBuyCommand {
  partnerId: string;
  partnerReference: string;
  walletId?: string;
  paymentRail?: string;
}

export class PayInBuyOrders implements OrderStep {
  constructor(private readonly deps: PayInBuyOrdersDependencies) {}

  /** The request fields only pay-in takes: walletId required, paymentRail `mobile_money` when given. */
  assertRequest(command: PayInBuyCommand): string {
    const bad: string[] = [];
    if (command.walletId === undefined || command.walletId === '') bad.push('walletId');
    if (command.paymentRail !== undefined && command.paymentRail !== PAY_IN_REQUEST_RAIL) bad.push('paymentRail');
    if (bad.length > 0) throw validationFailed(bad);
    return command.walletId!;
  }

  /** Read-only refusals particular to pay-in, after the shared ones: custody, then the wallet. */
  async assertDeliverable(partnerId: string, walletId: string): Promise<void> {
    if (this.deps.usdtCustody === 'none') throw new AppError('BRIDGE_NOT_CONFIGURED');
    if (!UUID_PATTERN.test(walletId)) throw new AppError('WALLET_NOT_FOUND');
    const status = await this.deps.walletRegistry.getWalletStatus({ partnerId, walletId });
    if (!status.active) throw new AppError('WALLET_OWNERSHIP_CHECK_FAILED');
  }

  /** The reference is registered with the ledger before the order exists; then cap, quote and order in one transaction. */
  async create(command: PayInBuyCommand, walletId: string, quote: QuoteRecord): Promise<OrderResult> {
    const funding = await this.deps.ledger.getFundingInstructions({ partnerId: command.partnerId });
    if (!funding.kesEntryAvailable) throw new AppError('PARTNER_VA_ACTIVATING');
    const orderId = randomUUID();
    const paymentReference = await this.registerReference(command.partnerId, orderId);
    const now = this.deps.clock.now();
    const payBefore = new Date(now.getTime() + this.deps.payWindowMs);
    return withTransaction(this.deps.dataSource, async (manager): Promise<OrderResult> => {
      await lockPartnerReference(manager, command.partnerId, command.partnerReference);
      const twin = await findOrderByReference(manager, command.partnerId, command.partnerReference);
      if (twin) return { order: twin, refusalCode: twin.refusalCode };
      const capKes = capAmountKes(quote);
      await reserveInTransaction(manager, { usageId: orderId, partnerId: command.partnerId, source: 'order', given: { currency: 'KES', amount: capKes } }, capKes, this.deps.clock.now());
      if (!(await consumeQuote(manager, command.partnerId, quote.quoteId))) throw new AppError('QUOTE_EXPIRED_OR_CONSUMED');
      const order = await insertOrder(manager, {
        orderId, partnerId: command.partnerId, partnerReference: command.partnerReference, quoteId: quote.quoteId, side: 'buy', fundingMode: 'pay_in',
        status: 'awaiting_payment', kesAmount: quote.kesAmount, usdtAmount: quote.usdtAmount, rate: quote.rate, feeKes: quote.feeKes, feeBps: quote.feeBps,
        feeFlatKes: quote.feeFlatKes, feeCapKes: quote.feeCapKes, kesTotalAmount: quote.kesTotalAmount, expiresAt: quote.expiresAt,
        kesDebitStatus: null, debitOutcome: null, depositAddress: null, sendBefore: null, payoutAccountId: null,
        nextActionAt: nextPaymentCheck(now, this.deps.paymentPollMs, payBefore),
        walletId, paymentReference, paybill: funding.paybill, beneficiaryName: funding.beneficiaryName, payBefore,
      });
      return { order, refusalCode: null };
    });
  }

  private async registerReference(partnerId: string, orderId: string): Promise<string> {
    for (let draw = 1; ; draw += 1) {
      const reference = newPaymentReference();
      try {
        await this.deps.ledger.registerPaymentReference({ reference, partnerId, orderId });
        return reference;
      } catch (error) {
        if (!isRefusal(error, 'LEDGER_ID_REUSED') || draw >= REFERENCE_DRAWS_MAX) throw error;
      }
    }
  }

  async run(order: OrderRecord): Promise<void> {
    if (order.side !== 'buy' || order.fundingMode !== 'pay_in') return;
    if (order.status === 'awaiting_payment') return this.lookForPayment(order);
    if (order.status === 'funds_reserved') return this.deliver(order);
  }

  private async lookForPayment(order: OrderRecord): Promise<void> {
    const payBefore = new Date(order.payBefore!);
    const { credits } = await this.deps.ledger.listCreditsByReference({ partnerId: order.partnerId, reference: order.paymentReference! });
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
    await updateOrder(this.deps.dataSource.manager, order.orderId, 'awaiting_payment', { nextActionAt: nextPaymentCheck(now, this.deps.paymentPollMs, payBefore) });
  }

  /** The funding payment is in the partner's KES balance: hold the order's total on it (same id, same body: safe to repeat). */
  private async holdPayment(order: OrderRecord): Promise<boolean> {
    const accounts = await this.deps.ledger.getPartnerAccounts({ partnerId: order.partnerId });
    try {
      await this.deps.ledger.placeHold({ holdId: order.orderId, accountId: accounts.kesAccountId, amount: order.kesTotalAmount, metadata: { orderId: order.orderId, kind: 'order_buy_pay_in' }, owner: orderHoldOwner(order.orderId) });
      return true;
    } catch (error) {
      if (!isRefusal(error, 'LEDGER_INSUFFICIENT_FUNDS')) throw error;
      // The partner spent the payment (transfers, debit-first buys) before it could be held: it no longer funds the order.
      this.deps.logger.warn('pay-in payment arrived but the KES balance no longer covers the order', { orderId: order.orderId });
      return false;
    }
  }

  private async confirmFunds(order: OrderRecord, credit: ReferencedCredit): Promise<void> {
    const now = this.deps.clock.now();
    await recordTransition(this.deps.dataSource, order, {
      from: 'awaiting_payment',
      changes: {
        status: 'funds_reserved', kesDebitStatus: 'reserved', fundsConfirmedAt: now, nextActionAt: new Date(now.getTime() + this.deps.settlementDelayMs),
        paymentBankTransactionId: credit.bankTransactionId, paymentRailReference: credit.railReference ?? '', paymentMatchedAt: now, paymentKesAmount: credit.amountKes,
      },
      event: 'order.funds_confirmed',
    }, this.deps.onEvents);
  }

  private async expire(order: OrderRecord): Promise<void> {
    await recordTransition(this.deps.dataSource, order, {
      from: 'awaiting_payment',
      changes: { status: 'expired', nextActionAt: null, completedAt: this.deps.clock.now() },
      event: 'order.expired',
      releaseCap: true,
    }, this.deps.onEvents);
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
        ...(new Big(order.feeKes).gt(0) ? [{ accountId: feeRevenueKes, amount: formatAmount(new Big(order.feeKes), 'KES') }] : []),
        { accountId: treasuryUsdt, amount: `-${usdt}` },
        { accountId: chainClearingUsdt, amount: usdt },
      ],
      kind: 'order_buy_pay_in_settlement',
      metadata: { orderId: order.orderId, walletId: order.walletId! },
    });
    await this.markSettled(order);
  }

  private async markSettled(order: OrderRecord): Promise<void> {
    await recordTransition(this.deps.dataSource, order, {
      from: 'funds_reserved',
      changes: { status: 'settled', kesDebitStatus: 'debited', nextActionAt: null, completedAt: this.deps.clock.now() },
      event: 'order.settled',
    }, this.deps.onEvents);
  }

  private async walletStillActive(order: OrderRecord): Promise<boolean> {
    try {
      return (await this.deps.walletRegistry.getWalletStatus({ partnerId: order.partnerId, walletId: order.walletId! })).active;
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
    await recordTransition(this.deps.dataSource, order, {
      from: 'funds_reserved',
      changes: { status: 'rejected', kesDebitStatus: 'released', nextActionAt: null, completedAt: this.deps.clock.now() },
      event: 'order.rejected',
      releaseCap: true,
    }, this.deps.onEvents);
  }
}
