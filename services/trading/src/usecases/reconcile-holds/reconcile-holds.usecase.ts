/**
 * Gives back trading's orphaned holds (domain/hold-owner.ts says which are
 * orphans): the ledger walk of @platform/saga's OrphanedHoldsWalk over
 * trading's own pending holds, reading their orders. Trading asks the ledger;
 * the ledger never asks trading about holds.
 */
import type { Logger } from '@platform/logger';
import { OrphanedHoldsWalk } from '@platform/saga';
import { holdVerdict, orderIdOfHoldOwner } from '../../domain/hold-owner';
import type { OrderStatus } from '../../domain/order';
import type { LedgerApi, LedgerHold } from '../../adapters/peers/peers';

export interface ReconcileHoldsDependencies {
  /** The status of each order that exists (OrdersRepository.statusesOf). */
  orderStatuses: (orderIds: string[]) => Promise<Map<string, OrderStatus>>;
  ledger: Pick<LedgerApi, 'listOwnedHolds' | 'voidHold'>;
  logger: Logger;
  /** Holds placed more recently than this are not looked at (wall-clock). */
  minAgeMs: number;
  now?: () => Date;
}

/** Trading's holds name an order; its id is the key. */
export class ReconcileHoldsUseCase extends OrphanedHoldsWalk<LedgerHold, OrderStatus> {
  constructor({ orderStatuses, ...walk }: ReconcileHoldsDependencies) {
    super({
      ...walk,
      owners: {
        service: 'trading',
        parse: orderIdOfHoldOwner,
        statuses: orderStatuses,
        verdict: holdVerdict,
        describe: (orderId, status) => ({ orderId, orderStatus: status ?? 'missing' }),
      },
    });
  }
}
