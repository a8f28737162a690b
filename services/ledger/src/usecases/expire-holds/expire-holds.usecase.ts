import { Big } from '@platform/money';
import { DataSource, withTransaction } from '@platform/persistence';
import type { HoldsRepository } from '../../persistence/holds.repository';
import { lockAccounts } from '../../persistence/journal.repository';

/**
 * Voids overdue pending holds as `expired`, one bounded batch per call. Rows
 * are claimed FOR UPDATE SKIP LOCKED, so every replica may sweep at once and
 * no hold is expired twice; a hold being posted right now is skipped and its
 * post (which checks expiry itself) decides.
 */
export class ExpireHoldsUseCase {
  constructor(private readonly dataSource: DataSource, private readonly holds: HoldsRepository) {}

  /** Expires at most `batchSize` holds; returns how many. */
  async execute(batchSize: number): Promise<number> {
    return withTransaction(this.dataSource, async (manager) => {
      const due = await this.holds.claimExpired(manager, batchSize);
      if (due.length === 0) return 0;
      await lockAccounts(manager, due.map((hold) => hold.accountId));
      for (const hold of due) {
        await this.holds.changeHeld(manager, hold.accountId, new Big(hold.amount).times(-1));
        await this.holds.resolve(manager, hold.holdId, { status: 'expired', postedAmount: new Big(0), entryId: null, resolutionHash: null });
      }
      return due.length;
    });
  }
}
