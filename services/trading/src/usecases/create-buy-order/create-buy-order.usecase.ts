/**
 * Partner action: a debit-first buy (spec sections 2 to 4, contract decisions
 * section 4). Checks in the contract's order: quote known (404) → same
 * partnerReference returns the original → kill switch, swaps → partner status
 * → KES account readiness → treasury → quote side → expectedUsdtAmount →
 * per-order cap → KES balance (a read; the hold is the real guard) → then one
 * transaction: daily cap reserved under the partner lock, quote consumed,
 * order inserted. Then the ledger hold (hold id = order id) and the bank's
 * debit. Settlement happens later, in the order scheduler.
 *
 * A partner configured `pay_in` gets the pay-in shape instead, after the same
 * checks up to the per-order cap (usecases/pay-in-buy): its fields (walletId,
 * paymentRail) are refused from a debit-first partner, never ignored.
 */
import { randomUUID } from 'node:crypto';
import { AppError, validationFailed } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { Big } from '@platform/money';
import type { DataSource } from '@platform/persistence';
import { withTransaction } from '@platform/persistence';
import type { KesDebitBank } from '../../adapters/bank/kes-debit-bank';
import type { Clock } from '../../domain/clock';
import { orderHoldOwner } from '../../domain/hold-owner';
import { capAmountKes, OrderRecord, PARTNER_REFERENCE_LENGTH_MAX } from '../../domain/order';
import { UUID_PATTERN } from '../../domain/partner-profile';
import { parseDecimal } from '@platform/money';
import { releaseCapUsage } from '../../persistence/cap-usages.repository';
import {
  consumeQuote, deleteOrder, findOrderByReference, findQuote, insertOrder, lockPartnerReference, NewOrder, QuoteRecord, unconsumeQuote,
} from '../../persistence/orders.repository';
import type { PlatformSwitchesRepository } from '../../persistence/platform-switches.repository';
import { assertPartnerActive, assertPlatformOpen, assertTreasuryAvailable, readProfile, readyAccounts } from '../order-guards';
import { isRefusal, LedgerApi, recordTransition } from '../order-support';
import { reserveInTransaction } from '../reserve-daily-cap/reserve-daily-cap.usecase';
import type { PayInBuyOrders } from '../pay-in-buy/pay-in-buy-orders';

export interface CreateBuyOrderCommand {
  partnerId: string;
  quoteId: string;
  partnerReference: string;
  expectedUsdtAmount?: string;
  /** Pay-in partners only (refused for debit-first ones, never ignored). */
  walletId?: string;
  paymentRail?: string;
}

/** The order, and the refusal code the create answered with when it was refused after the order came to exist. */
export interface OrderResult {
  order: OrderRecord;
  refusalCode: string | null;
}

export interface CreateBuyOrderDependencies {
  dataSource: DataSource;
  ledger: LedgerApi;
  switches: PlatformSwitchesRepository;
  bank: KesDebitBank;
  clock: Clock;
  logger: Logger;
  /** When an accepted debit settles (already scaled). */
  settlementDelayMs: number;
  /** When an ambiguous or unfinished debit is first reconciled (already scaled). */
  reconcileDelayMs: number;
  onEvents: () => void;
  /** A partner configured `pay_in` gets the pay-in shape. */
  payIn: PayInBuyOrders;
}

export function assertOrderReferences(command: { partnerId: string; quoteId: string; partnerReference: string }): void {
  const bad: string[] = [];
  if (!UUID_PATTERN.test(command.partnerId)) bad.push('partnerId');
  if (command.partnerReference.length === 0 || command.partnerReference.length > PARTNER_REFERENCE_LENGTH_MAX) bad.push('partnerReference');
  if (bad.length > 0) throw validationFailed(bad);
}

/** The replay of a create answers as the original did: the order, or its refusal. */
export function replayOf(order: OrderRecord): OrderResult {
  return { order, refusalCode: order.refusalCode };
}

export class CreateBuyOrderUseCase {
  constructor(private readonly deps: CreateBuyOrderDependencies) {}

  async execute(command: CreateBuyOrderCommand): Promise<OrderResult> {
    assertOrderReferences(command);
    const expected = this.expectedUsdt(command.expectedUsdtAmount);
    const manager = this.deps.dataSource.manager;
    const quote = UUID_PATTERN.test(command.quoteId) ? await findQuote(manager, command.partnerId, command.quoteId) : null;
    if (!quote) throw new AppError('QUOTE_NOT_FOUND');
    const original = await findOrderByReference(manager, command.partnerId, command.partnerReference);
    if (original) return replayOf(original);
    const treasury = await assertPlatformOpen(this.deps.switches);
    const profile = await readProfile(this.deps.dataSource, command.partnerId);
    const payInWallet = this.payInRequest(command, profile.buyMode);
    assertPartnerActive(profile);
    const accounts = await readyAccounts(this.deps.ledger, command.partnerId);
    assertTreasuryAvailable(treasury);
    if (quote.side !== 'buy') throw new AppError('QUOTE_SIDE_MISMATCH');
    if (expected && !expected.eq(quote.usdtAmount)) throw new AppError('EXPECTED_AMOUNT_MISMATCH');
    if (capAmountKes(quote).gt(profile.perOrderCapKes)) throw new AppError('ORDER_EXCEEDS_PER_ORDER_CAP');
    if (payInWallet !== null) {
      await this.deps.payIn.assertDeliverable(command.partnerId, payInWallet);
      return this.deps.payIn.create(command, payInWallet, quote);
    }
    await this.assertBalanceCovers(command.partnerId, quote.kesTotalAmount);
    const created = await this.persist(command, quote);
    if ('replay' in created) return replayOf(created.replay);
    return this.fund(created.order, accounts.kesAccountId);
  }

  /** The pay-in wallet id (its fields checked), or null for a debit-first partner, which must not send pay-in fields. */
  private payInRequest(command: CreateBuyOrderCommand, buyMode: 'debit_first' | 'pay_in'): string | null {
    if (buyMode === 'pay_in') return this.deps.payIn.assertRequest(command);
    const bad = [...(command.walletId !== undefined ? ['walletId'] : []), ...(command.paymentRail !== undefined ? ['paymentRail'] : [])];
    if (bad.length > 0) throw validationFailed(bad);
    return null;
  }

  private expectedUsdt(value: string | undefined): Big | null {
    if (value === undefined) return null;
    const parsed = parseDecimal(value, 6);
    if (parsed === null || parsed.lte(0)) throw validationFailed(['expectedUsdtAmount']);
    return parsed;
  }

  private async assertBalanceCovers(partnerId: string, kesTotalAmount: string): Promise<void> {
    let available: string | undefined;
    try {
      const { balances } = await this.deps.ledger.getBalances({ partnerId });
      available = balances.find((balance) => balance.currency === 'KES')?.available;
    } catch (error) {
      this.deps.logger.warn('KES balance unreadable', { partnerId, error });
      throw new AppError('KES_BALANCE_UNREADABLE');
    }
    if (available === undefined) throw new AppError('KES_BALANCE_UNREADABLE');
    if (new Big(available).lt(kesTotalAmount)) throw new AppError('INSUFFICIENT_KES_BALANCE');
  }

  /** Cap, quote and order in one transaction, serialised per partnerReference. */
  private async persist(command: CreateBuyOrderCommand, quote: QuoteRecord): Promise<{ order: OrderRecord } | { replay: OrderRecord }> {
    const orderId = randomUUID();
    return withTransaction(this.deps.dataSource, async (manager) => {
      await lockPartnerReference(manager, command.partnerId, command.partnerReference);
      const twin = await findOrderByReference(manager, command.partnerId, command.partnerReference);
      if (twin) return { replay: twin };
      await reserveInTransaction(manager, { usageId: orderId, partnerId: command.partnerId, source: 'order', given: { currency: 'KES', amount: capAmountKes(quote) } }, capAmountKes(quote), this.deps.clock.now());
      if (!(await consumeQuote(manager, command.partnerId, quote.quoteId))) throw new AppError('QUOTE_EXPIRED_OR_CONSUMED');
      const order: NewOrder = {
        orderId,
        partnerId: command.partnerId,
        partnerReference: command.partnerReference,
        quoteId: quote.quoteId,
        side: 'buy',
        fundingMode: 'debit_first',
        status: 'funds_reserved',
        kesAmount: quote.kesAmount,
        usdtAmount: quote.usdtAmount,
        rate: quote.rate,
        feeKes: quote.feeKes,
        feeBps: quote.feeBps,
        feeFlatKes: quote.feeFlatKes,
        feeCapKes: quote.feeCapKes,
        kesTotalAmount: quote.kesTotalAmount,
        expiresAt: quote.expiresAt,
        kesDebitStatus: 'reserved',
        debitOutcome: 'pending',
        depositAddress: null,
        sendBefore: null,
        payoutAccountId: null,
        // Should this process stop before the debit is answered, the scheduler reconciles it from the bank's record.
        nextActionAt: new Date(this.deps.clock.now().getTime() + this.deps.reconcileDelayMs),
      };
      return { order: await insertOrder(manager, order) };
    });
  }

  /** The hold, then the bank's debit; each answer leaves the order where the contract says. */
  private async fund(order: OrderRecord, kesAccountId: string): Promise<OrderResult> {
    try {
      await this.deps.ledger.placeHold({ holdId: order.orderId, accountId: kesAccountId, amount: order.kesTotalAmount, metadata: { orderId: order.orderId, kind: 'order_buy' }, owner: orderHoldOwner(order.orderId) });
    } catch (error) {
      if (isRefusal(error, 'LEDGER_INSUFFICIENT_FUNDS')) return this.undo(order);
      throw error; // The order stays funds_reserved; the scheduler places the hold (same id, same body) or rejects it.
    }
    const answer = await this.deps.bank.debit({ orderId: order.orderId, amountKes: order.kesTotalAmount });
    if (answer === 'accepted') return { order: await this.accepted(order), refusalCode: null };
    if (answer === 'ambiguous') return this.ambiguous(order);
    return this.refused(order);
  }

  /** The balance fell between the read and the hold: as if the read had refused. The quote is given back. */
  private async undo(order: OrderRecord): Promise<never> {
    await withTransaction(this.deps.dataSource, async (manager) => {
      await releaseCapUsage(manager, order.orderId);
      await deleteOrder(manager, order.orderId);
      await unconsumeQuote(manager, order.quoteId);
    });
    throw new AppError('INSUFFICIENT_KES_BALANCE');
  }

  private async accepted(order: OrderRecord): Promise<OrderRecord> {
    const now = this.deps.clock.now();
    const updated = await recordTransition(
      this.deps.dataSource,
      order,
      {
        from: 'funds_reserved',
        fromDebitOutcome: 'pending',
        changes: { debitOutcome: 'accepted', fundsConfirmedAt: now, nextActionAt: new Date(now.getTime() + this.deps.settlementDelayMs) },
        event: 'order.funds_confirmed',
      },
      this.deps.onEvents,
    );
    return updated ?? order;
  }

  private async ambiguous(order: OrderRecord): Promise<OrderResult> {
    this.deps.logger.warn('KES debit outcome ambiguous; reconciliation will resolve it', { orderId: order.orderId });
    const updated = await recordTransition(this.deps.dataSource, order, {
      from: 'funds_reserved',
      fromDebitOutcome: 'pending',
      changes: { debitOutcome: 'ambiguous', refusalCode: 'KES_DEBIT_AMBIGUOUS' },
    });
    return { order: updated ?? order, refusalCode: 'KES_DEBIT_AMBIGUOUS' };
  }

  /** Cleanly refused: nothing was taken, the hold is voided, the quote stays consumed. */
  private async refused(order: OrderRecord): Promise<OrderResult> {
    await this.deps.ledger.voidHold({ holdId: order.orderId });
    const updated = await recordTransition(this.deps.dataSource, order, {
      from: 'funds_reserved',
      fromDebitOutcome: 'pending',
      changes: { status: 'rejected', debitOutcome: 'refused', kesDebitStatus: 'released', refusalCode: 'KES_DEBIT_FAILED', nextActionAt: null, completedAt: this.deps.clock.now() },
      releaseCap: true,
    });
    return { order: updated ?? order, refusalCode: 'KES_DEBIT_FAILED' };
  }
}
