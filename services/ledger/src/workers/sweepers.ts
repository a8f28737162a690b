/**
 * The ledger's background workers, each a BatchSweeper (@platform/persistence)
 * in every replica: `expired_holds` (holds past their expiry go back to the
 * account, ExpireHoldsUseCase) and `held_deposits` (held USDT deposits whose
 * window passed are credited, ReleaseHeldDepositsUseCase). Both claim their
 * rows FOR UPDATE SKIP LOCKED and need only the ledger's own database, so they
 * have no readiness gate.
 */
import type { Logger } from '@platform/logger';
import { BatchSweeper, BatchSweeperOptions, DataSource, dueRowsProbe } from '@platform/persistence';
import type { HoldsRepository } from '../persistence/holds.repository';
import type { UsdtDepositsRepository } from '../persistence/usdt-deposits.repository';
import type { ExpireHoldsUseCase } from '../usecases/expire-holds/expire-holds.usecase';
import type { ReleaseHeldDepositsUseCase } from '../usecases/release-held-deposits/release-held-deposits.usecase';

export function ledgerSweepers(deps: {
  dataSource: DataSource;
  logger: Logger;
  sweep: BatchSweeperOptions;
  holds: HoldsRepository;
  deposits: UsdtDepositsRepository;
  expireHolds: ExpireHoldsUseCase;
  releaseDeposits: ReleaseHeldDepositsUseCase;
}): BatchSweeper[] {
  return [
    new BatchSweeper(
      'expired holds',
      (size) => deps.expireHolds.execute(size),
      deps.logger.child({ context: 'HoldExpirySweeper' }),
      deps.sweep,
      { worker: 'expired_holds', measureDue: dueRowsProbe(deps.dataSource, deps.holds.expiredRows) },
    ),
    new BatchSweeper(
      'held deposits',
      (size) => deps.releaseDeposits.execute(size),
      deps.logger.child({ context: 'HeldDepositSweeper' }),
      deps.sweep,
      { worker: 'held_deposits', measureDue: dueRowsProbe(deps.dataSource, deps.deposits.heldRows) },
    ),
  ];
}
