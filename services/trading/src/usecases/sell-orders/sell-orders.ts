/**
 * Sell orders in deposit mode (spec sections 2 to 4, contract decisions
 * section 4): create (awaiting_usdt with the partner's permanent deposit
 * address and sendBefore), attach the transaction hash, match the ledger's
 * deposit offers, and the scheduled steps (expiry at sendBefore).
 *
 * Deposit amount against the order's usdtAmount (documented for partners):
 * at least usdtAmount matches (any excess is credited to the partner's USDT
 * balance when the order settles); less rejects the order and the whole
 * deposit is credited to the partner's USDT balance.
 */
import { randomUUID } from 'node:crypto';
import { AppError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { Big, formatAmount } from '@platform/money';
import type { DataSource, EntityManager } from '@platform/persistence';
import { isUniqueViolation, queryRows, withTransaction } from '@platform/persistence';
import type { PromiseClient } from '@platform/grpc';
import type { payouts } from '@platform/proto';
import type { Clock } from '../../domain/clock';
import { orderHoldOwner } from '../../domain/hold-owner';
import { capAmountKes, OrderRecord, sandboxCollectionAnswer } from '../../domain/order';
import { UUID_PATTERN } from '../../domain/partner-profile';
import {
  consumeQuote, findOrder, findOrderByReference, findOrderByTxHash, findQuote, insertOrder, lockPartnerReference, NewOrder, QuoteRecord, updateOrder,
} from '../../persistence/orders.repository';
import type { PlatformSwitchesRepository } from '../../persistence/platform-switches.repository';
import { assertOrderReferences, OrderResult, replayOf } from '../create-buy-order/create-buy-order.usecase';
import type { DepositDecision, DepositMatcher, OfferUsdtDepositCommand } from '../offer-usdt-deposit/offer-usdt-deposit.usecase';
import { assertPartnerActive, assertPlatformOpen, assertTreasuryAvailable, readProfile } from '../order-guards';
import { isRefusal, LedgerApi, recordTransition, ServiceAccounts, transitionIn } from '../order-support';
import { reserveInTransaction } from '../reserve-daily-cap/reserve-daily-cap.usecase';
import type { OrderStep } from '../run-order-steps/order-scheduler';

export type PayoutsApi = Pick<PromiseClient<typeof payouts.OrderPayoutsService>, 'payOrderProceeds' | 'getPayoutInstruction'>;

export interface SellOrdersDependencies {
  dataSource: DataSource;
  ledger: LedgerApi;
  switches: PlatformSwitchesRepository;
  serviceAccounts: ServiceAccounts;
  clock: Clock;
  logger: Logger;
  /** How long the partner has to send the USDT (already scaled). */
  sendWindowMs: number;
  payouts: PayoutsApi;
  /** How soon a pending proceeds payout is asked about again. */
  payoutPollMs: number;
  /**
   * The chain custodian that collects a balance-mode sell's USDT: `sandbox`
   * (its magic values below), or `none` when no custodian is configured, which
   * refuses balance-mode sells with BRIDGE_NOT_CONFIGURED before anything is
   * consumed or collected.
   */
  usdtCustody: 'sandbox' | 'none';
  onEvents: () => void;
}

export interface CreateSellOrderCommand {
  partnerId: string;
  quoteId: string;
  partnerReference: string;
  payoutAccountId: string;
}

export class SellOrders implements DepositMatcher, OrderStep {
  constructor(private readonly deps: SellOrdersDependencies) {}

  /** Refusals in the contract's order; the quote is consumed last, with the cap, in one transaction. */
  async createSellOrder(command: CreateSellOrderCommand): Promise<OrderResult> {
    assertOrderReferences(command);
    const manager = this.deps.dataSource.manager;
    const quote = UUID_PATTERN.test(command.quoteId) ? await findQuote(manager, command.partnerId, command.quoteId) : null;
    if (!quote) throw new AppError('QUOTE_NOT_FOUND');
    const original = await findOrderByReference(manager, command.partnerId, command.partnerReference);
    if (original) return replayOf(original);
    const treasury = await assertPlatformOpen(this.deps.switches);
    const profile = await readProfile(this.deps.dataSource, command.partnerId);
    assertPartnerActive(profile);
    const accounts = await this.deps.ledger.getPartnerAccounts({ partnerId: command.partnerId });
    const balanceMode = profile.sellMode === 'balance';
    if (!balanceMode && !accounts.usdtDepositAddress) throw new AppError('USDT_DEPOSIT_ADDRESS_NOT_ALLOCATED');
    if (balanceMode && this.deps.usdtCustody === 'none') throw new AppError('BRIDGE_NOT_CONFIGURED');
    assertTreasuryAvailable(treasury);
    if (quote.side !== 'sell') throw new AppError('QUOTE_SIDE_MISMATCH');
    await this.assertPayable(command);
    if (capAmountKes(quote).gt(profile.perOrderCapKes)) throw new AppError('ORDER_EXCEEDS_PER_ORDER_CAP');
    if (!balanceMode) return this.persist(command, quote, accounts.usdtDepositAddress);
    const created = await this.persist(command, quote, null);
    // A replay answers as the original did; only the call that created the order collects.
    if (created.replayed) return created;
    return this.collect(created.order, accounts.usdtAccountId);
  }

  /**
   * Balance mode: the USDT is collected from the custodial balance at create
   * with a ledger hold (hold id = order id), posted when the proceeds are paid.
   * Sandbox custody, steered by usdtAmount's last two decimals (documented):
   * `…13` USDT_COLLECTION_FAILED, `…14` WALLET_OWNERSHIP_CHECK_FAILED. Any
   * refusal rejects the order (quote consumed, nothing collected, no event).
   */
  private async collect(order: OrderRecord, usdtAccountId: string): Promise<OrderResult> {
    const custody = sandboxCollectionAnswer(order.usdtAmount);
    if (custody !== null) return this.refuseCollection(order, custody);
    try {
      await this.deps.ledger.placeHold({ holdId: order.orderId, accountId: usdtAccountId, amount: formatAmount(new Big(order.usdtAmount), 'USDT'), metadata: { orderId: order.orderId, kind: 'order_sell' }, owner: orderHoldOwner(order.orderId) });
    } catch (error) {
      if (isRefusal(error, 'LEDGER_INSUFFICIENT_FUNDS')) return this.refuseCollection(order, 'INSUFFICIENT_USDT_BALANCE');
      throw error;
    }
    const now = this.deps.clock.now();
    const updated = await recordTransition(
      this.deps.dataSource,
      order,
      { from: 'funds_reserved', fromDebitOutcome: 'pending', changes: { debitOutcome: 'accepted', depositUsdtAmount: formatAmount(new Big(order.usdtAmount), 'USDT'), fundsConfirmedAt: now, nextActionAt: now }, event: 'order.funds_confirmed' },
      this.deps.onEvents,
    );
    return { order: updated ?? order, refusalCode: null };
  }

  private async refuseCollection(order: OrderRecord, code: 'INSUFFICIENT_USDT_BALANCE' | 'USDT_COLLECTION_FAILED' | 'WALLET_OWNERSHIP_CHECK_FAILED'): Promise<OrderResult> {
    const updated = await recordTransition(this.deps.dataSource, order, {
      from: 'funds_reserved',
      fromDebitOutcome: 'pending',
      changes: { status: 'rejected', debitOutcome: 'refused', refusalCode: code, nextActionAt: null, completedAt: this.deps.clock.now() },
      releaseCap: true,
    });
    return { order: updated ?? order, refusalCode: code };
  }

  private async assertPayable(command: CreateSellOrderCommand): Promise<void> {
    if (!UUID_PATTERN.test(command.payoutAccountId)) throw new AppError('PAYOUT_ACCOUNT_NOT_FOUND');
    const destination = await this.deps.ledger.getPayoutDestination({ id: command.payoutAccountId, partnerId: command.partnerId });
    if (destination.status !== 'active') throw new AppError('PAYOUT_ACCOUNT_NOT_PAYABLE');
  }

  private async persist(command: CreateSellOrderCommand, quote: QuoteRecord, depositAddress: string | null): Promise<OrderResult & { replayed: boolean }> {
    const orderId = randomUUID();
    const sendBefore = new Date(this.deps.clock.now().getTime() + this.deps.sendWindowMs);
    return withTransaction(this.deps.dataSource, async (manager) => {
      await lockPartnerReference(manager, command.partnerId, command.partnerReference);
      const twin = await findOrderByReference(manager, command.partnerId, command.partnerReference);
      if (twin) return { ...replayOf(twin), replayed: true };
      await reserveInTransaction(manager, { usageId: orderId, partnerId: command.partnerId, source: 'order', given: { currency: 'KES', amount: capAmountKes(quote) } }, capAmountKes(quote), this.deps.clock.now());
      if (!(await consumeQuote(manager, command.partnerId, quote.quoteId))) throw new AppError('QUOTE_EXPIRED_OR_CONSUMED');
      const order: NewOrder = {
        orderId,
        partnerId: command.partnerId,
        partnerReference: command.partnerReference,
        quoteId: quote.quoteId,
        side: 'sell',
        fundingMode: depositAddress === null ? 'balance' : 'deposit',
        status: depositAddress === null ? 'funds_reserved' : 'awaiting_usdt',
        kesAmount: quote.kesAmount,
        usdtAmount: quote.usdtAmount,
        rate: quote.rate,
        feeKes: quote.feeKes,
        feeBps: quote.feeBps,
        feeFlatKes: quote.feeFlatKes,
        feeCapKes: quote.feeCapKes,
        kesTotalAmount: quote.kesTotalAmount,
        expiresAt: quote.expiresAt,
        kesDebitStatus: null,
        // Balance mode: 'pending' until the collection answers; should this process stop first, the scheduler resolves it.
        debitOutcome: depositAddress === null ? 'pending' : null,
        depositAddress,
        sendBefore: depositAddress === null ? null : sendBefore,
        payoutAccountId: command.payoutAccountId,
        // Deposit mode: the window's timer (unfunded by then, expired). Balance mode: a recovery check after the lease.
        nextActionAt: depositAddress === null ? new Date(this.deps.clock.now().getTime() + this.deps.sendWindowMs) : sendBefore,
      };
      return { order: await insertOrder(manager, order), refusalCode: null, replayed: false };
    });
  }

  /**
   * PATCH /v1/orders/{id}: the same hash again is 200; a different one is
   * refused, never overwritten. A deposit the ledger is already holding for
   * attribution is claimed at once.
   */
  async attachTxHash(command: { partnerId: string; orderId: string; txHash: string }): Promise<OrderRecord> {
    let attached: OrderRecord;
    try {
      attached = await withTransaction(this.deps.dataSource, (manager) => this.attachIn(manager, command));
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError('TX_HASH_ALREADY_USED');
      throw error;
    }
    if (attached.status !== 'awaiting_usdt') return attached;
    return (await this.claimHeldDeposit(attached)) ?? attached;
  }

  private async attachIn(manager: EntityManager, command: { partnerId: string; orderId: string; txHash: string }): Promise<OrderRecord> {
    const order = UUID_PATTERN.test(command.orderId) ? await findOrder(manager, command.orderId, { forUpdate: true }) : null;
    if (!order || order.partnerId !== command.partnerId) throw new AppError('ORDER_NOT_FOUND');
    if (order.side !== 'sell') throw new AppError('ORDER_NOT_SELL_SIDE');
    if (order.txHash === command.txHash) return order;
    if (order.txHash !== null) throw new AppError('TX_HASH_ALREADY_ATTACHED');
    if (order.status !== 'awaiting_usdt') throw new AppError('ORDER_NOT_AWAITING_USDT');
    // Only the partner's own orders compete for a hash: another partner naming it cannot block this one.
    const other = await findOrderByTxHash(manager, command.partnerId, command.txHash);
    if (other) throw new AppError('TX_HASH_ALREADY_USED');
    const updated = await updateOrder(manager, order.orderId, 'awaiting_usdt', { txHash: command.txHash });
    if (!updated) throw new Error('order moved under its row lock');
    return updated;
  }

  /** The ledger held the deposit before the hash was known: claim it for this order now. */
  private async claimHeldDeposit(order: OrderRecord): Promise<OrderRecord | null> {
    try {
      const deposit = await this.deps.ledger.claimUsdtDeposit({ txHash: order.txHash!, partnerId: order.partnerId, orderId: order.orderId });
      return this.fund(order, deposit.usdtAmount);
    } catch (error) {
      // Not arrived yet (the offer will match it), or credited to the balance already (the order waits, then expires).
      if (isRefusal(error, 'LEDGER_DEPOSIT_NOT_FOUND') || isRefusal(error, 'LEDGER_DEPOSIT_NOT_CLAIMABLE')) return null;
      this.deps.logger.warn('claiming a held deposit failed; the order keeps waiting', { orderId: order.orderId, error });
      return null;
    }
  }

  /**
   * TradingDeposits.OfferUsdtDeposit: matched by hash, held while hashes may
   * still come, else none. The partner is the owner of the address the deposit
   * landed on: only that partner's order may take it.
   */
  async matchDeposit(command: OfferUsdtDepositCommand): Promise<DepositDecision> {
    const manager = this.deps.dataSource.manager;
    const order = await findOrderByTxHash(manager, command.partnerId, command.txHash);
    if (order && order.side === 'sell') {
      if (order.status === 'awaiting_usdt') {
        await this.fund(order, command.usdtAmount);
        return { decision: 'matched', orderId: order.orderId };
      }
      // A repeated offer of a deposit this order already took answers the same.
      if (order.depositUsdtAmount !== null && new Big(order.depositUsdtAmount).eq(command.usdtAmount)) return { decision: 'matched', orderId: order.orderId };
    }
    const [open] = await queryRows<{ holdUntil: Date | null }>(
      manager,
      `SELECT max(send_before) AS "holdUntil" FROM orders
        WHERE partner_id = $1 AND status = 'awaiting_usdt' AND tx_hash IS NULL AND send_before > now()`,
      [command.partnerId],
    );
    if (open?.holdUntil) return { decision: 'hold', holdUntil: new Date(open.holdUntil).toISOString() };
    return { decision: 'none' };
  }

  /**
   * The deposit is the order's: at least usdtAmount confirms the funds; less
   * rejects the order, and settlement credits the deposit back to the balance.
   */
  private async fund(order: OrderRecord, depositUsdtAmount: string): Promise<OrderRecord> {
    const deposit = formatAmount(new Big(depositUsdtAmount), 'USDT');
    const now = this.deps.clock.now();
    const enough = new Big(deposit).gte(order.usdtAmount);
    const updated = await recordTransition(
      this.deps.dataSource,
      order,
      enough
        ? { from: 'awaiting_usdt', changes: { status: 'funds_reserved', depositUsdtAmount: deposit, fundsConfirmedAt: now, nextActionAt: now }, event: 'order.funds_confirmed' }
        : { from: 'awaiting_usdt', changes: { status: 'rejected', depositUsdtAmount: deposit, nextActionAt: now, completedAt: now }, event: 'order.rejected', releaseCap: true },
      this.deps.onEvents,
    );
    return updated ?? (await findOrder(this.deps.dataSource.manager, order.orderId)) ?? order;
  }

  /** Scheduled steps of sell orders. */
  async run(order: OrderRecord): Promise<void> {
    if (order.side !== 'sell') return;
    if (order.status === 'awaiting_usdt') return this.expireIfDue(order);
    if (order.status === 'rejected' && order.depositUsdtAmount !== null) return this.returnDeposit(order);
    if (order.status === 'funds_reserved' && order.fundingMode === 'balance' && order.debitOutcome === 'pending') return this.resumeCollection(order);
    if (order.status === 'funds_reserved') return this.payProceeds(order);
  }

  /** The create stopped before its collection answered: collect now (the hold is idempotent on the order id). */
  private async resumeCollection(order: OrderRecord): Promise<void> {
    const accounts = await this.deps.ledger.getPartnerAccounts({ partnerId: order.partnerId });
    const result = await this.collect(order, accounts.usdtAccountId);
    if (result.refusalCode !== null) this.deps.logger.warn('balance-mode collection refused on resume', { orderId: order.orderId, code: result.refusalCode });
  }

  private async expireIfDue(order: OrderRecord): Promise<void> {
    const now = this.deps.clock.now();
    if (order.sendBefore && new Date(order.sendBefore).getTime() > now.getTime()) {
      await withTransaction(this.deps.dataSource, (manager) => updateOrder(manager, order.orderId, 'awaiting_usdt', { nextActionAt: order.sendBefore }));
      return;
    }
    await recordTransition(
      this.deps.dataSource,
      order,
      { from: 'awaiting_usdt', changes: { status: 'expired', nextActionAt: null, completedAt: now }, event: 'order.expired', releaseCap: true },
      this.deps.onEvents,
    );
  }

  /** A short deposit: the USDT the ledger holds for the order goes back to the partner's USDT balance. */
  private async returnDeposit(order: OrderRecord): Promise<void> {
    const [suspense, accounts] = await Promise.all([
      this.deps.serviceAccounts.id('suspense', 'USDT'),
      this.deps.ledger.getPartnerAccounts({ partnerId: order.partnerId }),
    ]);
    const amount = formatAmount(new Big(order.depositUsdtAmount!), 'USDT');
    await this.deps.ledger.postEntry({
      entryId: order.orderId,
      kind: 'order_sell_deposit_returned',
      partnerId: order.partnerId,
      postings: [
        { accountId: suspense, amount: `-${amount}` },
        { accountId: accounts.usdtAccountId, amount },
      ],
      metadata: { orderId: order.orderId, txHash: order.txHash ?? '' },
    });
    await withTransaction(this.deps.dataSource, (manager) => transitionIn(manager, order, { from: 'rejected', changes: { nextActionAt: null } }));
  }

  /**
   * A funded sell order's KES proceeds (kesTotalAmount) are paid out by the
   * payouts service (instruction id = order id, so a retried step asks for the
   * same payout). Trading polls the instruction from this scheduler:
   * settled → ONE balanced entry and order.settled; failed → order.rejected,
   * the USDT staying with the service in suspense for operators.
   */
  private async payProceeds(order: OrderRecord): Promise<void> {
    const instruction = order.payoutInstructionId === null
      ? await this.deps.payouts.payOrderProceeds({
        instructionId: order.orderId, partnerId: order.partnerId, orderId: order.orderId,
        payoutDestinationId: order.payoutAccountId!, amountKes: formatAmount(new Big(order.kesTotalAmount), 'KES'),
      })
      : await this.deps.payouts.getPayoutInstruction({ instructionId: order.payoutInstructionId });
    const pollAt = new Date(this.deps.clock.now().getTime() + this.deps.payoutPollMs);
    if (instruction.status === 'settled') return this.settle(order);
    if (instruction.status === 'failed') return this.rejectUnpaid(order, instruction.failureCode ?? 'UNKNOWN');
    await withTransaction(this.deps.dataSource, (manager) => updateOrder(manager, order.orderId, 'funds_reserved', { payoutInstructionId: instruction.instructionId, nextActionAt: pollAt }));
  }

  /**
   * USDT: suspense −deposit, treasury +usdtAmount, partner USDT +excess.
   * KES: treasury −kesAmount, fee revenue +fee, bank clearing +kesTotalAmount (paid out).
   */
  private async settle(order: OrderRecord): Promise<void> {
    const ids = this.deps.serviceAccounts;
    const [suspense, treasuryUsdt, treasuryKes, feeRevenue, bankClearing, accounts] = await Promise.all([
      ids.id('suspense', 'USDT'), ids.id('treasury', 'USDT'), ids.id('treasury', 'KES'), ids.id('fee_revenue', 'KES'), ids.id('bank_clearing', 'KES'),
      this.deps.ledger.getPartnerAccounts({ partnerId: order.partnerId }),
    ]);
    const deposit = new Big(order.depositUsdtAmount!);
    const excess = deposit.minus(order.usdtAmount);
    const usdt = (value: Big) => formatAmount(value, 'USDT');
    const kes = (value: Big) => formatAmount(value, 'KES');
    const postings = [
      { accountId: suspense, amount: usdt(deposit.times(-1)) },
      { accountId: treasuryUsdt, amount: usdt(new Big(order.usdtAmount)) },
      ...(excess.gt(0) ? [{ accountId: accounts.usdtAccountId, amount: usdt(excess) }] : []),
      { accountId: treasuryKes, amount: kes(new Big(order.kesAmount).times(-1)) },
      ...(new Big(order.feeKes).gt(0) ? [{ accountId: feeRevenue, amount: kes(new Big(order.feeKes)) }] : []),
      { accountId: bankClearing, amount: kes(new Big(order.kesTotalAmount)) },
    ];
    if (order.fundingMode === 'balance') {
      // ONE entry: the held partner USDT is debited, treasury USDT credited, and the KES legs as for deposits.
      const counterPostings = postings.filter((posting) => posting.accountId !== suspense);
      await this.deps.ledger.postHold({ holdId: order.orderId, postAmount: usdt(new Big(order.usdtAmount)), counterPostings, kind: 'order_sell_settlement', metadata: { orderId: order.orderId } });
    } else {
      await this.deps.ledger.postEntry({ entryId: order.orderId, kind: 'order_sell_settlement', partnerId: order.partnerId, postings, metadata: { orderId: order.orderId } });
    }
    await recordTransition(
      this.deps.dataSource,
      order,
      { from: 'funds_reserved', changes: { status: 'settled', payoutInstructionId: order.orderId, nextActionAt: null, completedAt: this.deps.clock.now() }, event: 'order.settled' },
      this.deps.onEvents,
    );
  }

  private async rejectUnpaid(order: OrderRecord, failureCode: string): Promise<void> {
    // Balance mode: the collected USDT goes back to the balance (the hold is voided).
    if (order.fundingMode === 'balance') await this.deps.ledger.voidHold({ holdId: order.orderId });
    this.deps.logger.warn('sell proceeds payout failed; the USDT stays with the service for operators', { orderId: order.orderId, failureCode });
    await recordTransition(
      this.deps.dataSource,
      order,
      { from: 'funds_reserved', changes: { status: 'rejected', payoutInstructionId: order.orderId, nextActionAt: null, completedAt: this.deps.clock.now() }, event: 'order.rejected', releaseCap: true },
      this.deps.onEvents,
    );
  }
}
