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
import {
  BatchSweeper,
  DataSource,
  DueRows,
  DueWork,
  DurableScheduler,
  EntityManager,
  ReadinessGate,
  SchedulerOptions,
} from '@platform/persistence';
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

/** Where one worker's rows are: their timers, and the claim of a due batch (a repository, or PushCredits). */
interface ClaimedRows<T> {
  readonly dueRows: DueRows;
  claimDue(manager: EntityManager, limit: number, leaseMs: number): Promise<T[]>;
}

/** One kind of due row on the shared scheduler: claimed from `rows`, each one's step run by `work`. */
function stepScheduler<T>(
  context: WorkerContext,
  rows: ClaimedRows<T>,
  work: Omit<DueWork<T>, 'dueRows' | 'claimDue'>,
  logger: Logger,
): DurableScheduler<unknown> {
  return new DurableScheduler<T>(
    context.dataSource,
    {
      ...work,
      dueRows: rows.dueRows,
      claimDue: (manager, limit, leaseMs) => rows.claimDue(manager, limit, leaseMs),
    },
    logger,
    context.options,
  ) as DurableScheduler<unknown>;
}

export function transferWorker(
  context: WorkerContext & { transfers: TransfersRepository; steps: TransferSteps; ready: ReadinessGate },
): DurableScheduler<unknown> {
  const { steps } = context;
  return stepScheduler(
    context,
    context.transfers,
    {
      name: 'transfer',
      idOf: (transfer) => transfer.transferId,
      run: (transfer) => steps.run(transfer),
      ready: context.ready,
    },
    context.logger.child({ context: 'TransferScheduler' }),
  );
}

export function usdtSendWorker(
  context: WorkerContext & { sends: UsdtSendsRepository; steps: UsdtSendSteps; ready: ReadinessGate },
): DurableScheduler<unknown> {
  const { steps } = context;
  return stepScheduler(
    context,
    context.sends,
    { name: 'usdt_send', idOf: (send) => send.sendId, run: (send) => steps.run(send), ready: context.ready },
    context.logger.child({ context: 'UsdtSendScheduler' }),
  );
}

/** Abandoned batch creates: deleted once their lease passed (their items are undone by the transfer worker first). */
export function transferBatchWorker(
  context: WorkerContext & { batches: TransferBatchesRepository },
): DurableScheduler<unknown> {
  const { batches, dataSource } = context;
  return stepScheduler(
    context,
    batches,
    {
      name: 'transfer_batch',
      idOf: (batch) => batch.batchId,
      run: (batch) =>
        batch.status === 'creating' ? batches.deleteCreating(dataSource.manager, batch.batchId) : Promise.resolve(),
    },
    context.logger.child({ context: 'TransferBatchScheduler' }),
  );
}

export function mobileMoneyCreditWorker(
  context: WorkerContext & { credits: PushCredits; ready: ReadinessGate },
): DurableScheduler<unknown> {
  const { credits } = context;
  return stepScheduler(
    context,
    credits,
    { name: credits.name, idOf: (push) => credits.idOf(push), run: (push) => credits.run(push), ready: context.ready },
    context.logger,
  );
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
