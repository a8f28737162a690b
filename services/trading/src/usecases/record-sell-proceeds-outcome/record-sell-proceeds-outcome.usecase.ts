/**
 * What payouts made of a funded sell order's KES proceeds (kesTotalAmount),
 * reported by payouts' sell-proceeds worker after it claimed the order
 * (usecases/claim-due-sell-proceeds) and made or read the payout instruction
 * (instruction id = order id). Trading never calls payouts: payouts calls
 * trading for the shared daily cap, and no service calls one that calls it back.
 * - accepted: the bank has not answered yet; the order is due again after
 *   payoutPollMs, when payouts reads the instruction again;
 * - settled: ONE balanced entry and order.settled;
 * - failed: order.rejected, a deposit's USDT staying with the service in
 *   suspense for operators (a balance-mode order's hold is voided: the USDT
 *   goes back to the balance).
 * Safe to repeat: ledger ids are the order id and every move compares and
 * sets the status, so a second report (another replica, a retried call)
 * changes nothing and answers the order as it stands.
 */
import { AppError, validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import type { Logger } from '@platform/logger';
import { Big, formatAmount } from '@platform/money';
import type { Clock } from '../../domain/clock';
import type { OrderRecord, OrderStatus } from '../../domain/order';
import type { OrdersRepository } from '../../persistence/orders.repository';
import type { OrderTransitions, PartnerAccountIds, ServiceAccounts } from '../order-support';
import type { LedgerApi } from '../../adapters/peers/peers';

export const SELL_PROCEEDS_OUTCOMES = ['accepted', 'settled', 'failed'] as const;
export type SellProceedsOutcome = (typeof SELL_PROCEEDS_OUTCOMES)[number];

/** A failure code as payouts names it (PROVIDER_REJECTED). Only ever logged: anything else is logged as UNRECOGNISED. */
const FAILURE_CODE = /^[A-Z][A-Z0-9_]{0,63}$/;

export interface RecordSellProceedsOutcomeCommand {
  orderId: string;
  instructionId: string;
  outcome: string;
  failureCode?: string;
}

export interface RecordSellProceedsOutcomeDependencies {
  orders: Pick<OrdersRepository, 'find'>;
  ledger: Pick<LedgerApi, 'postEntry' | 'postHold' | 'voidHold'>;
  serviceAccounts: ServiceAccounts;
  accountIds: PartnerAccountIds;
  transitions: OrderTransitions;
  clock: Clock;
  logger: Logger;
  /** How soon a pending proceeds payout is claimed (and its instruction read) again. */
  payoutPollMs: number;
}

export class RecordSellProceedsOutcomeUseCase {
  constructor(private readonly deps: RecordSellProceedsOutcomeDependencies) {}

  async execute(command: RecordSellProceedsOutcomeCommand): Promise<{ orderStatus: OrderStatus }> {
    const outcome = validOutcome(command);
    const order = await this.deps.orders.find(command.orderId);
    if (!order) throw new AppError('ORDER_NOT_FOUND');
    if (!awaitsProceeds(order)) return { orderStatus: order.status };
    const moved = await this.apply(order, outcome, loggableFailureCode(command.failureCode));
    // null: another report or step moved the order first; answer it as it now stands.
    const now = moved ?? (await this.deps.orders.find(order.orderId));
    return { orderStatus: (now ?? order).status };
  }

  private apply(order: OrderRecord, outcome: SellProceedsOutcome, failureCode: string): Promise<OrderRecord | null> {
    if (outcome === 'settled') return this.settle(order);
    if (outcome === 'failed') return this.rejectUnpaid(order, failureCode);
    return this.deps.transitions.record(order, {
      from: 'funds_reserved',
      changes: {
        payoutInstructionId: order.orderId,
        nextActionAt: new Date(this.deps.clock.now().getTime() + this.deps.payoutPollMs),
      },
    });
  }

  /**
   * USDT: suspense −deposit, treasury +usdtAmount, partner USDT +excess.
   * KES: treasury −kesAmount, fee revenue +fee, bank clearing +kesTotalAmount (paid out).
   */
  private async settle(order: OrderRecord): Promise<OrderRecord | null> {
    const ids = this.deps.serviceAccounts;
    const [suspense, treasuryUsdt, treasuryKes, feeRevenue, bankClearing, accounts] = await Promise.all([
      ids.id('suspense', 'USDT'),
      ids.id('treasury', 'USDT'),
      ids.id('treasury', 'KES'),
      ids.id('fee_revenue', 'KES'),
      ids.id('bank_clearing', 'KES'),
      this.deps.accountIds.of(order.partnerId),
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
      await this.deps.ledger.postHold({
        holdId: order.orderId,
        postAmount: usdt(new Big(order.usdtAmount)),
        counterPostings,
        kind: 'order_sell_settlement',
        metadata: { orderId: order.orderId },
      });
    } else {
      await this.deps.ledger.postEntry({
        entryId: order.orderId,
        kind: 'order_sell_settlement',
        partnerId: order.partnerId,
        postings,
        metadata: { orderId: order.orderId },
      });
    }
    return this.deps.transitions.record(order, {
      from: 'funds_reserved',
      changes: {
        status: 'settled',
        payoutInstructionId: order.orderId,
        nextActionAt: null,
        completedAt: this.deps.clock.now(),
      },
      event: 'order.settled',
    });
  }

  private async rejectUnpaid(order: OrderRecord, failureCode: string): Promise<OrderRecord | null> {
    if (order.fundingMode === 'balance') await this.deps.ledger.voidHold({ holdId: order.orderId });
    this.deps.logger.warn('sell proceeds payout failed; the USDT stays with the service for operators', {
      orderId: order.orderId,
      failureCode,
    });
    return this.deps.transitions.record(order, {
      from: 'funds_reserved',
      changes: {
        status: 'rejected',
        payoutInstructionId: order.orderId,
        nextActionAt: null,
        completedAt: this.deps.clock.now(),
      },
      event: 'order.rejected',
      releaseCap: true,
    });
  }
}

/** The instruction is always the order's own id: anything else is not a report about this order's payout. */
function validOutcome(command: RecordSellProceedsOutcomeCommand): SellProceedsOutcome {
  const bad: string[] = [];
  if (!isUuid(command.orderId)) bad.push('orderId');
  if (command.instructionId !== command.orderId) bad.push('instructionId');
  if (!(SELL_PROCEEDS_OUTCOMES as readonly string[]).includes(command.outcome)) bad.push('outcome');
  if (command.outcome === 'failed' && !command.failureCode) bad.push('failureCode');
  if (bad.length > 0) throw validationFailed(bad);
  return command.outcome as SellProceedsOutcome;
}

/** A funded sell order whose proceeds are payouts' to pay (the order worker leaves exactly these to payouts). */
export function awaitsProceeds(order: OrderRecord): boolean {
  return order.side === 'sell' && order.status === 'funds_reserved' && order.debitOutcome !== 'pending';
}

/** A bank's failure code never refuses the report (the order would wait forever): it only shapes the log. */
function loggableFailureCode(failureCode: string | undefined): string {
  if (failureCode === undefined) return 'UNKNOWN';
  return FAILURE_CODE.test(failureCode) ? failureCode : 'UNRECOGNISED';
}
