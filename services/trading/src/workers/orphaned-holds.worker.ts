/**
 * The `orphaned_holds` worker: voids trading's ledger holds whose order no
 * longer needs them (ReconcileHoldsUseCase), a page per batch, on the shared
 * BatchSweeper (@platform/persistence) in every replica. It sweeps only while
 * the ledger looks reachable (its channel and breaker, no network round trip).
 */
import { allReachable } from '@platform/grpc';
import type { Logger } from '@platform/logger';
import { BatchSweeper } from '@platform/persistence';
import type { OrdersRepository } from '../persistence/orders.repository';
import { ReconcileHoldsDependencies, ReconcileHoldsUseCase } from '../usecases/reconcile-holds/reconcile-holds.usecase';

/** Holds looked at per ledger call of the hold reconciler (the ledger allows up to 500). */
export const HOLD_RECONCILE_PAGE_SIZE = 100;

export function orphanedHoldsWorker(deps: {
  orders: OrdersRepository;
  ledger: ReconcileHoldsDependencies['ledger'];
  logger: Logger;
  intervalMs: number;
  minAgeMs: number;
}): BatchSweeper {
  const logger = deps.logger.child({ context: 'HoldReconciler' });
  const reconcile = new ReconcileHoldsUseCase({
    orderStatuses: (orderIds) => deps.orders.statusesOf(orderIds),
    ledger: deps.ledger,
    logger,
    minAgeMs: deps.minAgeMs,
  });
  return new BatchSweeper(
    'trading holds',
    (size) => reconcile.execute(size),
    logger,
    { intervalMs: deps.intervalMs, batchSize: HOLD_RECONCILE_PAGE_SIZE, ready: allReachable(deps.ledger) },
    { worker: 'orphaned_holds' },
  );
}
