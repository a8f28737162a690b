import { AppError, validationFailed } from '@platform/errors';
import { Big } from '@platform/money';
import { DataSource, EntityManager, withTransaction } from '@platform/persistence';
import { isUuid } from '../../domain/ids';
import { requestHash } from '../../domain/request-hash';
import type { HoldRecord, HoldsRepository } from '../../persistence/holds.repository';
import { lockAccounts } from '../../persistence/journal.repository';

const VOID_HASH = requestHash({ action: 'void' });

/** Returns a pending hold's amount to available and resolves it; the hold row must be locked. */
export async function releaseHold(manager: EntityManager, holds: HoldsRepository, hold: HoldRecord, status: 'voided' | 'expired', resolutionHash: string | null): Promise<HoldRecord> {
  await lockAccounts(manager, [hold.accountId]);
  await holds.changeHeld(manager, hold.accountId, new Big(hold.amount).times(-1));
  return holds.resolve(manager, hold.holdId, { status, postedAmount: new Big(0), entryId: null, resolutionHash });
}

/**
 * Voids a pending hold: held −= amount, exactly once. Voiding a voided or
 * expired hold returns it (the money is already back); voiding a posted one is
 * LEDGER_HOLD_ALREADY_RESOLVED.
 */
export class VoidHoldUseCase {
  constructor(private readonly dataSource: DataSource, private readonly holds: HoldsRepository) {}

  async execute(command: { holdId: string }): Promise<HoldRecord> {
    if (!isUuid(command.holdId)) throw validationFailed(['holdId']);
    return withTransaction(this.dataSource, async (manager) => {
      const hold = await this.holds.findForUpdate(manager, command.holdId);
      if (!hold) throw new AppError('LEDGER_HOLD_NOT_FOUND');
      if (hold.status === 'posted') throw new AppError('LEDGER_HOLD_ALREADY_RESOLVED');
      if (hold.status !== 'pending') return hold;
      return releaseHold(manager, this.holds, hold, hold.expiredNow ? 'expired' : 'voided', VOID_HASH);
    });
  }
}
