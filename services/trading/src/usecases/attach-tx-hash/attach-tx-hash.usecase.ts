/**
 * PATCH /v1/orders/{id}: a sell order's deposit transaction hash. The same
 * hash again answers the order; a different one is refused, never overwritten;
 * only the partner's own orders compete for a hash. A deposit the ledger is
 * already holding for attribution is claimed at once.
 */
import { AppError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import type { DataSource, EntityManager } from '@platform/persistence';
import { isUniqueViolation, withTransaction } from '@platform/persistence';
import type { OrderRecord } from '../../domain/order';
import { UUID_PATTERN } from '../../domain/partner-profile';
import type { OrdersRepository } from '../../persistence/orders.repository';
import type { FundSellDepositUseCase } from '../fund-sell-deposit/fund-sell-deposit.usecase';
import { isRefusal } from '../order-support';
import type { LedgerApi } from '../../adapters/peers/peers';

export interface AttachTxHashCommand {
  partnerId: string;
  orderId: string;
  txHash: string;
}

export interface AttachTxHashDependencies {
  dataSource: DataSource;
  orders: Pick<OrdersRepository, 'find' | 'findByTxHash' | 'update'>;
  ledger: Pick<LedgerApi, 'claimUsdtDeposit'>;
  fundSellDeposit: Pick<FundSellDepositUseCase, 'execute'>;
  logger: Logger;
}

export class AttachTxHashUseCase {
  constructor(private readonly deps: AttachTxHashDependencies) {}

  async execute(command: AttachTxHashCommand): Promise<OrderRecord> {
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

  private async attachIn(manager: EntityManager, command: AttachTxHashCommand): Promise<OrderRecord> {
    const order = UUID_PATTERN.test(command.orderId)
      ? await this.deps.orders.find(command.orderId, { forUpdate: true, manager })
      : null;
    if (!order || order.partnerId !== command.partnerId) throw new AppError('ORDER_NOT_FOUND');
    if (order.side !== 'sell') throw new AppError('ORDER_NOT_SELL_SIDE');
    if (order.txHash === command.txHash) return order;
    if (order.txHash !== null) throw new AppError('TX_HASH_ALREADY_ATTACHED');
    if (order.status !== 'awaiting_usdt') throw new AppError('ORDER_NOT_AWAITING_USDT');
    // Only the partner's own orders compete for a hash: another partner naming it cannot block this one.
    const other = await this.deps.orders.findByTxHash(command.partnerId, command.txHash, manager);
    if (other) throw new AppError('TX_HASH_ALREADY_USED');
    const updated = await this.deps.orders.update(manager, order.orderId, 'awaiting_usdt', { txHash: command.txHash });
    if (!updated) throw new Error('order moved under its row lock');
    return updated;
  }

  /** The ledger held the deposit before the hash was known: claim it for this order now. */
  private async claimHeldDeposit(order: OrderRecord): Promise<OrderRecord | null> {
    try {
      const deposit = await this.deps.ledger.claimUsdtDeposit({
        txHash: order.txHash!,
        partnerId: order.partnerId,
        orderId: order.orderId,
      });
      return await this.deps.fundSellDeposit.execute(order, deposit.usdtAmount);
    } catch (error) {
      // Not arrived yet (the offer will match it), or credited to the balance already (the order waits, then expires).
      if (isRefusal(error, 'LEDGER_DEPOSIT_NOT_FOUND') || isRefusal(error, 'LEDGER_DEPOSIT_NOT_CLAIMABLE')) return null;
      this.deps.logger.warn('claiming a held deposit failed; the order keeps waiting', {
        orderId: order.orderId,
        error,
      });
      return null;
    }
  }
}
