/**
 * Payouts' other background workers, each on the shared primitives of
 * @platform/persistence, each claiming only while the peers its steps call
 * look reachable (their gRPC channel and breaker, no network round trip):
 * - `transfer` (TransferSteps: abandoned creates, lapsed codes): ledger, trading;
 * - `usdt_send` (UsdtSendSteps): ledger, trading, wallet-registry, the chain custodian;
 * - `transfer_batch` (abandoned batch creates): the database only, never gated;
 * - `mobile_money_credit` (PushCredits; its pass also lapses unanswered prompts): ledger;
 * - `orphaned_holds` (ReconcileHoldsUseCase, a BatchSweeper): ledger.
 * A step that meets an unavailable peer gives its row back at once (lease
 * cleared, attempt uncounted) for a replica with a healthy path.
 */
import type { Logger } from '@platform/logger';
import { BatchSweeper, DataSource, DurableScheduler, ReadinessGate, SchedulerOptions } from '@platform/persistence';
import type { TransferBatchesRepository } from '../persistence/transfer-batches.repository';
import type { TransfersRepository } from '../persistence/transfers.repository';
import type { UsdtSendsRepository } from '../persistence/usdt-sends.repository';
import type { PushCredits } from '../usecases/funding/push-credits';
import type { ReconcileHoldsUseCase } from '../usecases/reconcile-holds/reconcile-holds.usecase';
import type { TransferSteps } from '../usecases/run-transfers/transfer-steps';
import type { UsdtSendSteps } from '../usecases/run-usdt-sends/usdt-send-steps';

/** Holds looked at per ledger call of the hold reconciler (the ledger allows up to 500). */
export const HOLD_RECONCILE_PAGE_SIZE = 100;

interface WorkerContext {
  dataSource: DataSource;
  logger: Logger;
  options: SchedulerOptions;
}

export function transferWorker(
  context: WorkerContext & { transfers: TransfersRepository; steps: TransferSteps; ready: ReadinessGate },
): DurableScheduler<unknown> {
  const { transfers, steps } = context;
  return new DurableScheduler(
    context.dataSource,
    {
      name: 'transfer',
      dueRows: transfers.dueRows,
      claimDue: (manager, limit, leaseMs) => transfers.claimDue(manager, limit, leaseMs),
      idOf: (transfer) => transfer.transferId,
      run: (transfer) => steps.run(transfer),
      ready: context.ready,
    },
    context.logger.child({ context: 'TransferScheduler' }),
    context.options,
  ) as DurableScheduler<unknown>;
}

export function usdtSendWorker(
  context: WorkerContext & { sends: UsdtSendsRepository; steps: UsdtSendSteps; ready: ReadinessGate },
): DurableScheduler<unknown> {
  const { sends, steps } = context;
  return new DurableScheduler(
    context.dataSource,
    {
      name: 'usdt_send',
      dueRows: sends.dueRows,
      claimDue: (manager, limit, leaseMs) => sends.claimDue(manager, limit, leaseMs),
      idOf: (send) => send.sendId,
      run: (send, lease) => steps.run(send, lease),
      ready: context.ready,
    },
    context.logger.child({ context: 'UsdtSendScheduler' }),
    context.options,
  ) as DurableScheduler<unknown>;
}

/** Abandoned batch creates: deleted once their lease passed (their items are undone by the transfer worker first). */
export function transferBatchWorker(
  context: WorkerContext & { batches: TransferBatchesRepository },
): DurableScheduler<unknown> {
  const { batches, dataSource } = context;
  return new DurableScheduler(
    dataSource,
    {
      name: 'transfer_batch',
      dueRows: batches.dueRows,
      claimDue: (manager, limit, leaseMs) => batches.claimDue(manager, limit, leaseMs),
      idOf: (batch) => batch.batchId,
      run: (batch) =>
        batch.status === 'creating' ? batches.deleteCreating(dataSource.manager, batch.batchId) : Promise.resolve(),
    },
    context.logger.child({ context: 'TransferBatchScheduler' }),
    context.options,
  ) as DurableScheduler<unknown>;
}

export function mobileMoneyCreditWorker(
  context: WorkerContext & { credits: PushCredits; ready: ReadinessGate },
): DurableScheduler<unknown> {
  const { credits } = context;
  return new DurableScheduler(
    context.dataSource,
    {
      name: credits.name,
      dueRows: credits.dueRows,
      claimDue: (manager, limit, leaseMs) => credits.claimDue(manager, limit, leaseMs),
      idOf: (push) => credits.idOf(push),
      run: (push) => credits.run(push),
      ready: context.ready,
    },
    context.logger,
    context.options,
  ) as DurableScheduler<unknown>;
}

export function orphanedHoldsWorker(context: {
  reconcile: ReconcileHoldsUseCase;
  logger: Logger;
  intervalMs: number;
  ready: ReadinessGate;
}): BatchSweeper {
  return new BatchSweeper(
    'payouts holds',
    (size) => context.reconcile.execute(size),
    context.logger.child({ context: 'HoldReconciler' }),
    { intervalMs: context.intervalMs, batchSize: HOLD_RECONCILE_PAGE_SIZE, ready: context.ready },
    { worker: 'orphaned_holds' },
  );
}
