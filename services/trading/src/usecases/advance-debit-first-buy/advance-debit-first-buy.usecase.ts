/**
 * The scheduled step of a debit-first buy holding its funds:
 * - debit pending or ambiguous: the bank's record decides (debited → funds
 *   confirmed; not debited → rejected, hold voided, cap given back);
 * - debit accepted: settle, posting the hold in ONE balanced entry.
 *
 * Settlement in rounds: the orders of one scheduler claim whose debit was
 * accepted are settled together when the first of them is run. Their holds
 * are posted by ONE ledger call (PostHolds: one ledger transaction; each post
 * exactly once, the same request again answers the posted hold; should the
 * call fail as a whole, each hold is posted by its own call, a few at once),
 * then ONE statement moves every posted order
 * to settled with its own `order.settled` outbox row, so a claim of N orders
 * costs trading one commit instead of N. Each order's step still answers its
 * own outcome: a post that failed fails that order's step only (its lease
 * brings it back, and the retry posts the same request again); a failed
 * statement fails the step of every order it carried, none of them moved. An
 * order whose hold the ledger does not know takes the one-order path.
 */
import { AppError, isErrorCode } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { Big, formatAmount } from '@platform/money';
import type { KesDebitBank } from '../../adapters/bank/kes-debit-bank';
import type { Clock } from '../../domain/clock';
import { orderHoldOwner } from '../../domain/hold-owner';
import type { OrderRecord } from '../../domain/order';
import { isRefusal, OrderTransitions, PartnerAccountIds, ServiceAccounts } from '../order-support';
import type { LedgerApi, LedgerPostHoldRequest as PostHoldRequest } from '../../adapters/peers/peers';

export interface AdvanceDebitFirstBuyDependencies {
  ledger: Pick<LedgerApi, 'placeHold' | 'postHold' | 'postHolds' | 'voidHold'>;
  serviceAccounts: ServiceAccounts;
  accountIds: PartnerAccountIds;
  transitions: OrderTransitions;
  bank: KesDebitBank;
  clock: Clock;
  logger: Logger;
  settlementDelayMs: number;
}

/** Ledger posts of one settlement round in flight at once, at most. */
export const SETTLEMENT_POSTS_IN_FLIGHT_MAX = 8;

/** The debit was accepted: the order is settled by posting its hold. */
function isSettleReady(order: OrderRecord): boolean {
  return (
    order.side === 'buy' &&
    order.fundingMode === 'debit_first' &&
    order.status === 'funds_reserved' &&
    order.debitOutcome === 'accepted'
  );
}

export class AdvanceDebitFirstBuyUseCase {
  /** The settle-ready orders of the scheduler's latest claim and, once started, each one's outcome. */
  private round: { orderIds: Set<string>; orders: OrderRecord[]; outcomes: Map<string, Promise<void>> | null } | null =
    null;

  constructor(private readonly deps: AdvanceDebitFirstBuyDependencies) {}

  /** The scheduler claimed these orders (its steps follow one by one): the settle-ready ones form the next round. */
  claimed(orders: readonly OrderRecord[]): void {
    const ready = orders.filter(isSettleReady);
    this.round =
      ready.length > 1
        ? { orderIds: new Set(ready.map((order) => order.orderId)), orders: ready, outcomes: null }
        : null;
  }

  async execute(order: OrderRecord): Promise<void> {
    if (order.status !== 'funds_reserved') return;
    if (order.debitOutcome === 'accepted') return this.roundOutcome(order) ?? this.settle(order);
    return this.reconcile(order);
  }

  /** The order's outcome in the current round (the round starts on its first order's step); undefined outside one. */
  private roundOutcome(order: OrderRecord): Promise<void> | undefined {
    const round = this.round;
    if (!round || !round.orderIds.has(order.orderId)) return undefined;
    round.outcomes ??= this.settleRound(round.orders);
    return round.outcomes.get(order.orderId);
  }

  /** Starts the round; answers each order's outcome (already handled, so an order whose step never comes raises nothing). */
  private settleRound(orders: OrderRecord[]): Map<string, Promise<void>> {
    const outcomes = this.postAndMove(orders);
    const byOrder = new Map<string, Promise<void>>();
    for (const order of orders) {
      const outcome = outcomes.then((settled) => settled.get(order.orderId) ?? this.settle(order));
      outcome.catch(() => undefined);
      byOrder.set(order.orderId, outcome);
    }
    return byOrder;
  }

  /**
   * Posts every order's hold, then moves the posted ones in one statement.
   * Answers a settled outcome per order handled here; an order absent from the
   * answer (its hold unknown to the ledger) takes the one-order path.
   */
  private async postAndMove(orders: OrderRecord[]): Promise<Map<string, Promise<void>>> {
    const outcomes = new Map<string, Promise<void>>();
    const requests = new Map<string, PostHoldRequest>();
    await Promise.all(
      orders.map(async (order) => {
        try {
          requests.set(order.orderId, await this.postRequest(order));
        } catch (error) {
          outcomes.set(order.orderId, Promise.reject(error));
        }
      }),
    );
    const ready = orders.filter((order) => requests.has(order.orderId));
    const posted = await this.postTogether(ready, requests, outcomes).catch((error: unknown) => {
      this.deps.logger.warn('PostHolds failed as a whole; posting the round hold by hold', {
        orders: ready.length,
        error: (error as Error).message,
      });
      return this.postOneByOne(ready, outcomes);
    });
    const moved = this.deps.transitions.recordMany(posted, this.settledTransition());
    for (const order of posted)
      outcomes.set(
        order.orderId,
        moved.then(() => undefined),
      );
    for (const outcome of outcomes.values()) outcome.catch(() => undefined);
    return outcomes;
  }

  /** One PostHolds call for the round: answers the posted orders and records each refusal as its order's outcome. */
  private async postTogether(
    orders: OrderRecord[],
    requests: Map<string, PostHoldRequest>,
    outcomes: Map<string, Promise<void>>,
  ): Promise<OrderRecord[]> {
    if (orders.length === 0) return [];
    const { outcomes: answers } = await this.deps.ledger.postHolds({
      holds: orders.map((order) => requests.get(order.orderId)!),
    });
    if (answers.length !== orders.length)
      throw new Error(`PostHolds answered ${answers.length} outcomes for ${orders.length} holds`);
    const posted: OrderRecord[] = [];
    orders.forEach((order, index) => {
      const answer = answers[index]!;
      if (answer.hold) posted.push(order);
      // An unknown hold is left out: its order takes the one-order path (place, then post).
      else if (answer.errorCode !== 'LEDGER_HOLD_NOT_FOUND')
        outcomes.set(order.orderId, Promise.reject(refusalOf(answer.errorCode)));
    });
    return posted;
  }

  /** Each hold by its own PostHold call, a few at once: a refusal is its order's outcome. */
  private async postOneByOne(orders: OrderRecord[], outcomes: Map<string, Promise<void>>): Promise<OrderRecord[]> {
    const posted: OrderRecord[] = [];
    await inBoundedParallel(orders, SETTLEMENT_POSTS_IN_FLIGHT_MAX, async (order) => {
      try {
        const accounts = await this.deps.accountIds.of(order.partnerId);
        if (await this.postHold(order, accounts.usdtAccountId)) posted.push(order);
      } catch (error) {
        outcomes.set(order.orderId, Promise.reject(error));
      }
    });
    return posted;
  }

  private settledTransition() {
    return {
      from: 'funds_reserved' as const,
      changes: {
        status: 'settled' as const,
        kesDebitStatus: 'debited' as const,
        nextActionAt: null,
        completedAt: this.deps.clock.now(),
      },
      event: 'order.settled' as const,
    };
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
    await this.deps.transitions.record(order, this.settledTransition());
  }

  /** Posts the order's hold; false when the ledger has no such hold (unless it was just placed, which is a bug). */
  private async postHold(
    order: OrderRecord,
    usdtAccountId: string,
    options: { holdPlaced?: boolean } = {},
  ): Promise<boolean> {
    try {
      await this.deps.ledger.postHold(await this.postRequest(order, usdtAccountId));
      return true;
    } catch (error) {
      if (options.holdPlaced || !isRefusal(error, 'LEDGER_HOLD_NOT_FOUND')) throw error;
      return false;
    }
  }

  /** The order's post, the same request whoever sends it and however often (the ledger's exactly-once key). */
  private async postRequest(order: OrderRecord, usdtAccountId?: string): Promise<PostHoldRequest> {
    const [treasuryKes, feeRevenueKes, treasuryUsdt, partnerUsdt] = await Promise.all([
      this.deps.serviceAccounts.id('treasury', 'KES'),
      this.deps.serviceAccounts.id('fee_revenue', 'KES'),
      this.deps.serviceAccounts.id('treasury', 'USDT'),
      usdtAccountId ?? this.deps.accountIds.of(order.partnerId).then((accounts) => accounts.usdtAccountId),
    ]);
    const usdt = formatAmount(new Big(order.usdtAmount), 'USDT');
    const counterPostings = [
      { accountId: treasuryKes, amount: formatAmount(new Big(order.kesAmount), 'KES') },
      ...(new Big(order.feeKes).gt(0)
        ? [{ accountId: feeRevenueKes, amount: formatAmount(new Big(order.feeKes), 'KES') }]
        : []),
      { accountId: treasuryUsdt, amount: `-${usdt}` },
      { accountId: partnerUsdt, amount: usdt },
    ];
    return {
      holdId: order.orderId,
      postAmount: formatAmount(new Big(order.kesTotalAmount), 'KES'),
      counterPostings,
      kind: 'order_buy_settlement',
      metadata: { orderId: order.orderId },
    };
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

/** The ledger's refusal of one post of a batch, as its own PostHold would have rejected. */
function refusalOf(code: string): Error {
  return isErrorCode(code) ? new AppError(code) : new Error(`the ledger refused the post: ${code || 'no code'}`);
}

/** Runs `work` for every item, at most `inFlightMax` at once; resolves when all have ended (work never rejects). */
async function inBoundedParallel<T>(
  items: readonly T[],
  inFlightMax: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(inFlightMax, items.length) }, lane));
}
