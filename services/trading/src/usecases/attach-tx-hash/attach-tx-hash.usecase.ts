/**
 * PATCH /v1/orders/{id}: a sell order's deposit transaction hash. The same
 * hash again answers the order; a different one is refused, never overwritten;
 * only the partner's own orders compete for a hash. The hash is registered
 * with the ledger before answering, which claims a deposit it already holds
 * for attribution at once; a deposit arriving later is claimed by the ledger
 * and found by the scheduler, which asks every depositPollMs (and registers the
 * hash itself should the ledger not have answered here).
 */
import { AppError } from '@platform/errors';
import { isUuid } from '@platform/ids';
import type { Logger } from '@platform/logger';
import type { DataSource, EntityManager } from '@platform/persistence';
import { isUniqueViolation, withTransaction } from '@platform/persistence';
import type { OrderRecord } from '../../domain/order';
import type { OrdersRepository } from '../../persistence/orders.repository';
import type { Clock } from '../../domain/clock';
import type { FundSellDepositUseCase } from '../fund-sell-deposit/fund-sell-deposit.usecase';
import { expectSellDeposit, nextDepositCheck } from '../fund-sell-deposit/sell-deposit-expectation';
import type { LedgerApi } from '../../adapters/peers/peers';

export interface AttachTxHashCommand {
  partnerId: string;
  orderId: string;
  txHash: string;
}

export interface AttachTxHashDependencies {
  dataSource: DataSource;
  orders: Pick<OrdersRepository, 'find' | 'findByTxHash' | 'update'>;
  ledger: Pick<LedgerApi, 'expectUsdtDeposit'>;
  fundSellDeposit: Pick<FundSellDepositUseCase, 'execute'>;
  clock: Clock;
  logger: Logger;
  /** How soon the scheduler asks the ledger for the order's deposit once it has a hash. */
  depositPollMs: number;
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
    return (await this.registerHash(attached)) ?? attached;
  }

  private async attachIn(manager: EntityManager, command: AttachTxHashCommand): Promise<OrderRecord> {
    const order = isUuid(command.orderId)
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
    const nextActionAt = nextDepositCheck(
      this.deps.clock.now(),
      { ...order, txHash: command.txHash },
      this.deps.depositPollMs,
    );
    const updated = await this.deps.orders.update(manager, order.orderId, 'awaiting_usdt', {
      txHash: command.txHash,
      nextActionAt,
    });
    if (!updated) throw new Error('order moved under its row lock');
    return updated;
  }

  /** The hash to the ledger; a deposit it held before the hash was known is claimed for this order now. */
  private async registerHash(order: OrderRecord): Promise<OrderRecord | null> {
    try {
      const state = await expectSellDeposit(this.deps.ledger, order);
      if (state.depositUsdtAmount === null) return null;
      return await this.deps.fundSellDeposit.execute(order, state.depositUsdtAmount);
    } catch (error) {
      // The scheduler registers it on its next check; meanwhile the ledger holds the partner's deposits.
      this.deps.logger.warn('registering a hash with the ledger failed; the scheduler retries', {
        orderId: order.orderId,
        error,
      });
      return null;
    }
  }
}
