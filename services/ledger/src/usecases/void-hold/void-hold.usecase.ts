import { AppError, validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import { DataSource, EntityManager, withTransaction } from '@platform/persistence';
import { requestHash } from '../../domain/request-hash';
import type { HoldRecord, HoldsRepository } from '../../persistence/holds.repository';
import type { MoneyMovementLog } from '../money-movements';

const VOID_HASH = requestHash({ action: 'void' });

/**
 * Returns a pending hold's amount to available and resolves it, in one statement that
 * locks the account after the hold row (the lock order); the hold row must be locked.
 */
export async function releaseHold(
  manager: EntityManager,
  holds: HoldsRepository,
  hold: HoldRecord,
  status: 'voided' | 'expired',
  resolutionHash: string | null,
): Promise<HoldRecord> {
  return holds.release(manager, hold, status, resolutionHash);
}

/**
 * Voids a pending hold: held −= amount, exactly once. Voiding a voided or
 * expired hold returns it (the money is already back); voiding a posted one is
 * LEDGER_HOLD_ALREADY_RESOLVED.
 */
export class VoidHoldUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly holds: HoldsRepository,
    private readonly movements: MoneyMovementLog,
  ) {}

  async execute(command: { holdId: string }): Promise<HoldRecord> {
    if (!isUuid(command.holdId)) throw validationFailed(['holdId']);
    const { hold, releasedNow } = await withTransaction(this.dataSource, async (manager) => {
      const found = await this.holds.findForUpdate(manager, command.holdId);
      if (!found) throw new AppError('LEDGER_HOLD_NOT_FOUND');
      if (found.status === 'posted') throw new AppError('LEDGER_HOLD_ALREADY_RESOLVED');
      if (found.status !== 'pending') return { hold: found, releasedNow: false };
      return {
        hold: await releaseHold(manager, this.holds, found, found.expiredNow ? 'expired' : 'voided', VOID_HASH),
        releasedNow: true,
      };
    });
    if (releasedNow) this.movements.holdResolved(hold);
    return hold;
  }
}
