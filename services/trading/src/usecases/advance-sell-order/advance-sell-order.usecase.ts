/**
 * The scheduled steps of a sell order:
 * - awaiting_usdt: the ledger is asked about the order's deposit
 *   (usecases/fund-sell-deposit/sell-deposit-expectation): one claimed for it
 *   funds it; once the ledger no longer takes one (sendBefore passed on its
 *   clock), expired (order.expired, cap given back); until then, asked again;
 * - rejected with a short deposit: the deposit goes back to the USDT balance;
 * - balance mode whose create stopped before its collection answered: collect now;
 * A funded order's proceeds are not a step here: payouts claims them from
 * trading and reports the payout (usecases/record-sell-proceeds-outcome).
 */
import { Big, formatAmount } from '@platform/money';
import type { Logger } from '@platform/logger';
import type { Clock } from '../../domain/clock';
import type { OrderRecord } from '../../domain/order';
import type { SellBalanceFunding } from '../create-order/sell.funding';
import type { OrderTransitions, PartnerAccountIds, ServiceAccounts } from '../order-support';
import type { FundSellDepositUseCase } from '../fund-sell-deposit/fund-sell-deposit.usecase';
import { expectSellDeposit, nextDepositCheck } from '../fund-sell-deposit/sell-deposit-expectation';
import type { LedgerApi } from '../../adapters/peers/peers';

export interface AdvanceSellOrderDependencies {
  ledger: Pick<LedgerApi, 'postEntry' | 'expectUsdtDeposit'>;
  serviceAccounts: ServiceAccounts;
  accountIds: PartnerAccountIds;
  transitions: OrderTransitions;
  balanceFunding: Pick<SellBalanceFunding, 'collect'>;
  fundSellDeposit: Pick<FundSellDepositUseCase, 'execute'>;
  clock: Clock;
  logger: Logger;
  /** How soon an awaiting order with a hash asks the ledger again for its deposit. */
  depositPollMs: number;
}

export class AdvanceSellOrderUseCase {
  constructor(private readonly deps: AdvanceSellOrderDependencies) {}

  async execute(order: OrderRecord): Promise<void> {
    if (order.status === 'awaiting_usdt') return this.followDeposit(order);
    if (order.status === 'rejected' && order.depositUsdtAmount !== null) return this.returnDeposit(order);
    if (order.status === 'funds_reserved' && order.fundingMode === 'balance' && order.debitOutcome === 'pending')
      return this.resumeCollection(order);
  }

  /** The create stopped before its collection answered: collect now (the hold is idempotent on the order id). */
  private async resumeCollection(order: OrderRecord): Promise<void> {
    const accounts = await this.deps.accountIds.of(order.partnerId);
    const result = await this.deps.balanceFunding.collect(order, accounts.usdtAccountId);
    if (result.refusalCode !== null)
      this.deps.logger.warn('balance-mode collection refused on resume', {
        orderId: order.orderId,
        code: result.refusalCode,
      });
  }

  /**
   * Also registers the order's expectation (and hash) when the create or the
   * attach could not: the call is idempotent. The ledger's `open` is what
   * expires the order, so a deposit it claimed just before sendBefore is never
   * stranded by an expiry decided on this replica's clock.
   */
  private async followDeposit(order: OrderRecord): Promise<void> {
    const state = await expectSellDeposit(this.deps.ledger, order);
    if (state.depositUsdtAmount !== null) {
      await this.deps.fundSellDeposit.execute(order, state.depositUsdtAmount);
      return;
    }
    const now = this.deps.clock.now();
    if (state.open) {
      const nextActionAt = nextDepositCheck(now, order, this.deps.depositPollMs);
      await this.deps.transitions.record(order, { from: 'awaiting_usdt', changes: { nextActionAt } });
      return;
    }
    await this.deps.transitions.record(order, {
      from: 'awaiting_usdt',
      changes: { status: 'expired', nextActionAt: null, completedAt: now },
      event: 'order.expired',
      releaseCap: true,
    });
  }

  /** A short deposit: the USDT the ledger holds for the order goes back to the partner's USDT balance. */
  private async returnDeposit(order: OrderRecord): Promise<void> {
    const [suspense, accounts] = await Promise.all([
      this.deps.serviceAccounts.id('suspense', 'USDT'),
      this.deps.accountIds.of(order.partnerId),
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
    await this.deps.transitions.record(order, { from: 'rejected', changes: { nextActionAt: null } });
  }
}
