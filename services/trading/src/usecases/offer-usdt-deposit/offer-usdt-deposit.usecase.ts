/**
 * The ledger offers each inbound USDT deposit before crediting a balance: a
 * sell order awaiting USDT whose attached hash is this one takes it
 * ("matched"); open sell orders still awaiting a hash ask the ledger to hold
 * it until the latest of their send-before times ("hold"); otherwise it tops
 * up the balance ("none"). The partner is the owner of the address the
 * deposit landed on: only that partner's order may take it.
 */
import { validationFailed } from '@platform/errors';
import { Big, parsePositiveAmount } from '@platform/money';
import type { OrdersRepository } from '../../persistence/orders.repository';
import type { FundSellDepositUseCase } from '../fund-sell-deposit/fund-sell-deposit.usecase';

export interface OfferUsdtDepositCommand {
  partnerId: string;
  txHash: string;
  usdtAmount: string;
}

export type DepositDecision =
  { decision: 'matched'; orderId: string } | { decision: 'hold'; holdUntil: string } | { decision: 'none' };

export interface OfferUsdtDepositDependencies {
  orders: Pick<OrdersRepository, 'findByTxHash' | 'latestOpenSendBefore'>;
  fundSellDeposit: Pick<FundSellDepositUseCase, 'execute'>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TX_HASH = /^[0-9a-f]{64}$/;

export class OfferUsdtDepositUseCase {
  constructor(private readonly deps: OfferUsdtDepositDependencies) {}

  async execute(command: OfferUsdtDepositCommand): Promise<DepositDecision> {
    const bad: string[] = [];
    if (!UUID.test(command.partnerId)) bad.push('partnerId');
    if (!TX_HASH.test(command.txHash)) bad.push('txHash');
    if (!parsePositiveAmount(command.usdtAmount, 'USDT')) bad.push('usdtAmount');
    if (bad.length > 0) throw validationFailed(bad);
    return this.decide(command);
  }

  private async decide(command: OfferUsdtDepositCommand): Promise<DepositDecision> {
    const order = await this.deps.orders.findByTxHash(command.partnerId, command.txHash);
    if (order && order.side === 'sell') {
      if (order.status === 'awaiting_usdt') {
        await this.deps.fundSellDeposit.execute(order, command.usdtAmount);
        return { decision: 'matched', orderId: order.orderId };
      }
      // A repeated offer of a deposit this order already took answers the same.
      if (order.depositUsdtAmount !== null && new Big(order.depositUsdtAmount).eq(command.usdtAmount))
        return { decision: 'matched', orderId: order.orderId };
    }
    const holdUntil = await this.deps.orders.latestOpenSendBefore(command.partnerId);
    if (holdUntil) return { decision: 'hold', holdUntil: new Date(holdUntil).toISOString() };
    return { decision: 'none' };
  }
}
