/**
 * A funded sell order's KES proceeds (kesTotalAmount) are paid out by the
 * payouts service (instruction id = order id, so a retried step asks for the
 * same payout). Trading polls the instruction from the scheduler: settled →
 * ONE balanced entry and order.settled; failed → order.rejected, a deposit's
 * USDT staying with the service in suspense for operators (a balance-mode
 * order's hold is voided: the USDT goes back to the balance).
 */
import type { Logger } from '@platform/logger';
import { Big, formatAmount } from '@platform/money';
import type { Clock } from '../../domain/clock';
import type { OrderRecord } from '../../domain/order';
import type { OrderTransitions, PartnerAccountIds, ServiceAccounts } from '../order-support';
import type { LedgerApi, PayoutsApi } from '../../adapters/peers/peers';

export interface PaySellProceedsDependencies {
  ledger: Pick<LedgerApi, 'postEntry' | 'postHold' | 'voidHold'>;
  payouts: PayoutsApi;
  serviceAccounts: ServiceAccounts;
  accountIds: PartnerAccountIds;
  transitions: OrderTransitions;
  clock: Clock;
  logger: Logger;
  /** How soon a pending proceeds payout is asked about again. */
  payoutPollMs: number;
}

export class PaySellProceedsUseCase {
  constructor(private readonly deps: PaySellProceedsDependencies) {}

  async execute(order: OrderRecord): Promise<void> {
    const instruction =
      order.payoutInstructionId === null
        ? await this.deps.payouts.payOrderProceeds({
            instructionId: order.orderId,
            partnerId: order.partnerId,
            orderId: order.orderId,
            payoutDestinationId: order.payoutAccountId!,
            amountKes: formatAmount(new Big(order.kesTotalAmount), 'KES'),
          })
        : await this.deps.payouts.getPayoutInstruction({ instructionId: order.payoutInstructionId });
    const pollAt = new Date(this.deps.clock.now().getTime() + this.deps.payoutPollMs);
    if (instruction.status === 'settled') return this.settle(order);
    if (instruction.status === 'failed') return this.rejectUnpaid(order, instruction.failureCode ?? 'UNKNOWN');
    await this.deps.transitions.record(order, {
      from: 'funds_reserved',
      changes: { payoutInstructionId: instruction.instructionId, nextActionAt: pollAt },
    });
  }

  /**
   * USDT: suspense −deposit, treasury +usdtAmount, partner USDT +excess.
   * KES: treasury −kesAmount, fee revenue +fee, bank clearing +kesTotalAmount (paid out).
   */
  private async settle(order: OrderRecord): Promise<void> {
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
    await this.deps.transitions.record(order, {
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

  private async rejectUnpaid(order: OrderRecord, failureCode: string): Promise<void> {
    if (order.fundingMode === 'balance') await this.deps.ledger.voidHold({ holdId: order.orderId });
    this.deps.logger.warn('sell proceeds payout failed; the USDT stays with the service for operators', {
      orderId: order.orderId,
      failureCode,
    });
    await this.deps.transitions.record(order, {
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
