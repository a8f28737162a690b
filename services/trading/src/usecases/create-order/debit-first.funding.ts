/**
 * Debit-first buy: the partner's KES balance pays. Before the order exists the
 * balance is read, by the same ledger call that reads the accounts' readiness,
 * and judged at its place in the refusal order (a refusal that consumes
 * nothing; the hold is the real guard). After it exists: a ledger hold of
 * kesTotalAmount on the partner's KES account (hold id = order id), then the bank's debit. A hold refused for funds
 * undoes the order (cap and quote given back, row deleted) and answers
 * INSUFFICIENT_KES_BALANCE, as if the balance read had refused. Settlement is
 * the scheduler's (usecases/advance-debit-first-buy).
 */
import { AppError, validationFailed } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { Big } from '@platform/money';
import type { DataSource } from '@platform/persistence';
import { GroupCommit, withTransaction } from '@platform/persistence';
import type { KesDebitBank } from '../../adapters/bank/kes-debit-bank';
import type { Clock } from '../../domain/clock';
import { orderHoldOwner } from '../../domain/hold-owner';
import type { OrderRecord } from '../../domain/order';
import type { CapUsagesRepository } from '../../persistence/cap-usages.repository';
import type { OrdersRepository } from '../../persistence/orders.repository';
import type { QuotesRepository } from '../../persistence/quotes.repository';
import { isRefusal, OrderTransitions } from '../order-support';
import { assertExpectedUsdt } from './buy-request';
import type { CreateOrderCommand, FundingFields, FundingStrategy, OrderIntake, OrderResult } from './funding-strategy';
import { assertKesAccountReady } from './order-guards';
import type { LedgerApi, LedgerPartnerAccounts } from '../../adapters/peers/peers';

export interface DebitFirstFundingDependencies {
  dataSource: DataSource;
  ledger: Pick<LedgerApi, 'getBalances' | 'placeHold' | 'voidHold'>;
  bank: KesDebitBank;
  transitions: Pick<OrderTransitions, 'record' | 'recordMany'>;
  /** The undo of a create whose hold was refused. */
  orders: Pick<OrdersRepository, 'delete'>;
  quotes: Pick<QuotesRepository, 'unconsume'>;
  capUsages: Pick<CapUsagesRepository, 'release'>;
  clock: Clock;
  logger: Logger;
  /** When an accepted debit settles (already scaled). */
  settlementDelayMs: number;
  /** When an ambiguous or unfinished debit is first reconciled (already scaled). */
  reconcileDelayMs: number;
}

/** Funds confirmations written by one statement, at most. */
export const FUNDS_CONFIRMATIONS_PER_STATEMENT_MAX = 50;

export class DebitFirstFunding implements FundingStrategy {
  readonly side = 'buy';
  readonly fundingMode = 'debit_first';
  readonly readsKesBalance = true;
  /**
   * Creates answered by the bank while another confirmation is being written
   * are confirmed together by the next statement (one commit for all, each
   * order with its own event); alone, a confirmation waits for nobody.
   */
  private readonly confirmations: GroupCommit<OrderRecord, OrderRecord | null>;

  constructor(private readonly deps: DebitFirstFundingDependencies) {
    this.confirmations = new GroupCommit((orders) => this.confirmMany(orders), FUNDS_CONFIRMATIONS_PER_STATEMENT_MAX);
  }

  /** The pay-in fields are refused from a debit-first partner, never ignored. */
  assertRequest(command: CreateOrderCommand): void {
    if (command.side !== 'buy') return;
    const bad = [
      ...(command.walletId !== undefined ? ['walletId'] : []),
      ...(command.paymentRail !== undefined ? ['paymentRail'] : []),
    ];
    if (bad.length > 0) throw validationFailed(bad);
  }

  assertAccounts(accounts: LedgerPartnerAccounts): void {
    assertKesAccountReady(accounts);
  }

  async assertBeforeCap(intake: Pick<OrderIntake, 'command' | 'quote'>): Promise<void> {
    assertExpectedUsdt(intake.command, intake.quote.usdtAmount);
  }

  async prepare(intake: OrderIntake): Promise<FundingFields> {
    await this.assertBalanceCovers(intake, intake.quote.kesTotalAmount);
    return {
      status: 'funds_reserved',
      kesDebitStatus: 'reserved',
      debitOutcome: 'pending',
      depositAddress: null,
      sendBefore: null,
      payoutAccountId: null,
      // Should this process stop before the debit is answered, the scheduler reconciles it from the bank's record.
      nextActionAt: new Date(intake.now.getTime() + this.deps.reconcileDelayMs),
    };
  }

  /** The hold, then the bank's debit; each answer leaves the order where the contract says. */
  async fund(order: OrderRecord, intake: OrderIntake): Promise<OrderResult> {
    try {
      await this.deps.ledger.placeHold({
        holdId: order.orderId,
        accountId: intake.accounts.kesAccountId,
        amount: order.kesTotalAmount,
        metadata: { orderId: order.orderId, kind: 'order_buy' },
        owner: orderHoldOwner(order.orderId),
      });
    } catch (error) {
      if (isRefusal(error, 'LEDGER_INSUFFICIENT_FUNDS')) return this.undo(order);
      throw error; // The order stays funds_reserved; the scheduler places the hold (same id, same body) or rejects it.
    }
    const answer = await this.deps.bank.debit({ orderId: order.orderId, amountKes: order.kesTotalAmount });
    if (answer === 'accepted') return { order: await this.accepted(order), refusalCode: null };
    if (answer === 'ambiguous') return this.ambiguous(order);
    return this.refused(order);
  }

  /** The balance the accounts' read brought; asked separately only of a ledger that did not answer it. */
  private async assertBalanceCovers(intake: OrderIntake, kesTotalAmount: string): Promise<void> {
    const available = intake.accounts.kesBalance?.available ?? (await this.readKesAvailable(intake.command.partnerId));
    if (available === undefined) throw new AppError('KES_BALANCE_UNREADABLE');
    if (new Big(available).lt(kesTotalAmount)) throw new AppError('INSUFFICIENT_KES_BALANCE');
  }

  private async readKesAvailable(partnerId: string): Promise<string | undefined> {
    try {
      const { balances } = await this.deps.ledger.getBalances({ partnerId });
      return balances.find((balance) => balance.currency === 'KES')?.available;
    } catch (error) {
      this.deps.logger.warn('KES balance unreadable', { partnerId, error });
      throw new AppError('KES_BALANCE_UNREADABLE');
    }
  }

  /** The compensation: the balance fell between the read and the hold, so the create is undone as if the read had refused. */
  private async undo(order: OrderRecord): Promise<never> {
    await withTransaction(this.deps.dataSource, async (manager) => {
      await this.deps.capUsages.release(manager, order.orderId);
      await this.deps.orders.delete(manager, order.orderId);
      await this.deps.quotes.unconsume(manager, order.quoteId);
    });
    throw new AppError('INSUFFICIENT_KES_BALANCE');
  }

  private async accepted(order: OrderRecord): Promise<OrderRecord> {
    return (await this.confirmations.submit(order)) ?? order;
  }

  /** Compare-and-set on the pending debit, per order: one the scheduler confirmed first answers null. */
  private async confirmMany(orders: readonly OrderRecord[]): Promise<(OrderRecord | null)[]> {
    const now = this.deps.clock.now();
    const moved = await this.deps.transitions.recordMany(orders, {
      from: 'funds_reserved',
      fromDebitOutcome: 'pending',
      changes: {
        debitOutcome: 'accepted',
        fundsConfirmedAt: now,
        nextActionAt: new Date(now.getTime() + this.deps.settlementDelayMs),
      },
      event: 'order.funds_confirmed',
    });
    const byId = new Map(moved.map((confirmed) => [confirmed.orderId, confirmed]));
    return orders.map((order) => byId.get(order.orderId) ?? null);
  }

  private async ambiguous(order: OrderRecord): Promise<OrderResult> {
    this.deps.logger.warn('KES debit outcome ambiguous; reconciliation will resolve it', { orderId: order.orderId });
    const updated = await this.deps.transitions.record(order, {
      from: 'funds_reserved',
      fromDebitOutcome: 'pending',
      changes: { debitOutcome: 'ambiguous', refusalCode: 'KES_DEBIT_AMBIGUOUS' },
    });
    return { order: updated ?? order, refusalCode: 'KES_DEBIT_AMBIGUOUS' };
  }

  /** Cleanly refused: nothing was taken, the hold is voided, the quote stays consumed. */
  private async refused(order: OrderRecord): Promise<OrderResult> {
    await this.deps.ledger.voidHold({ holdId: order.orderId });
    const updated = await this.deps.transitions.record(order, {
      from: 'funds_reserved',
      fromDebitOutcome: 'pending',
      changes: {
        status: 'rejected',
        debitOutcome: 'refused',
        kesDebitStatus: 'released',
        refusalCode: 'KES_DEBIT_FAILED',
        nextActionAt: null,
        completedAt: this.deps.clock.now(),
      },
      releaseCap: true,
    });
    return { order: updated ?? order, refusalCode: 'KES_DEBIT_FAILED' };
  }
}
