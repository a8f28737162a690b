import { DataSource, withTransaction } from '@platform/persistence';
import type { HoldRecord, HoldsRepository } from '../../persistence/holds.repository';
import { lockAccounts } from '../../persistence/journal.repository';
import type { MoneyMovementLog } from '../money-movements';

/**
 * Voids overdue pending holds as `expired`, one bounded batch per call. Rows
 * are claimed FOR UPDATE SKIP LOCKED, so every replica may sweep at once and
 * no hold is expired twice; a hold being posted right now is skipped and its
 * post (which checks expiry itself) decides.
 */
export class ExpireHoldsUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly holds: HoldsRepository,
    private readonly movements: MoneyMovementLog,
  ) {}

  /** Expires at most `batchSize` holds; returns how many. */
  async execute(batchSize: number): Promise<number> {
    const expired = await withTransaction(this.dataSource, async (manager) => {
      const due = await this.holds.claimExpired(manager, batchSize);
      if (due.length === 0) return [];
      await lockAccounts(
        manager,
        due.map((hold) => hold.accountId),
      );
      const resolved: HoldRecord[] = [];
      for (const hold of due) resolved.push(await this.holds.release(manager, hold, 'expired', null));
      return resolved;
    });
    for (const hold of expired) this.movements.holdResolved(hold);
    return expired.length;
  }
}
