/**
 * confirmation_code_budgets and wrong_confirmation_codes: a partner's wrong
 * codes over the rolling window and its lock. Counting row-locks the partner's
 * budget row before anything else, so concurrent wrong codes of one partner
 * (on any of its confirmations) are counted in turn and none is lost.
 */
import type { EntityManager } from '@platform/persistence';
import { queryRows } from '@platform/persistence';
import { shouldLock, windowStartOf, WrongCodeBudgetSettings, WrongCodeCount } from '../domain/wrong-code-budget';

export interface WrongCode {
  partnerId: string;
  confirmationId: string;
  countedAt: Date;
}

export interface ClearedLock {
  /** When the lock that was cleared had been set; null when the partner was not locked. */
  lockedAt: Date | null;
  wrongCodesCleared: number;
}

export class WrongCodeBudgetsRepository {
  /** Whether the partner's confirmations are locked (a plain read: the lock is only ever set by a wrong code, never by a right one). */
  async isLocked(manager: EntityManager, partnerId: string): Promise<boolean> {
    const [row] = await queryRows<{ locked: boolean }>(
      manager,
      'SELECT locked_at IS NOT NULL AS locked FROM confirmation_code_budgets WHERE partner_id = $1',
      [partnerId],
    );
    return row?.locked ?? false;
  }

  /** Counts one wrong code in the caller's transaction and sets the lock when it spends the budget. */
  async countWrongCode(
    manager: EntityManager,
    wrongCode: WrongCode,
    settings: WrongCodeBudgetSettings,
  ): Promise<WrongCodeCount> {
    const alreadyLocked = await this.lockBudgetRow(manager, wrongCode.partnerId);
    const windowStart = windowStartOf(wrongCode.countedAt, settings);
    await manager.query('DELETE FROM wrong_confirmation_codes WHERE partner_id = $1 AND counted_at <= $2', [
      wrongCode.partnerId,
      windowStart,
    ]);
    await manager.query(
      'INSERT INTO wrong_confirmation_codes (partner_id, confirmation_id, counted_at) VALUES ($1, $2, $3)',
      [wrongCode.partnerId, wrongCode.confirmationId, wrongCode.countedAt],
    );
    // Under the budget row's lock: every earlier wrong code of the partner has committed, none later has started.
    const [{ count }] = await queryRows<{ count: number }>(
      manager,
      'SELECT count(*)::int AS count FROM wrong_confirmation_codes WHERE partner_id = $1 AND counted_at > $2',
      [wrongCode.partnerId, windowStart],
    );
    const lockedNow = shouldLock(count, alreadyLocked, settings);
    if (lockedNow) {
      await manager.query('UPDATE confirmation_code_budgets SET locked_at = $2 WHERE partner_id = $1', [
        wrongCode.partnerId,
        wrongCode.countedAt,
      ]);
    }
    return { wrongCodesInWindow: count, lockedNow };
  }

  /** Lifts the lock and forgets the counted wrong codes: the partner starts a fresh budget. Harmless when nothing is locked. */
  async clear(manager: EntityManager, partnerId: string, clearedAt: Date): Promise<ClearedLock> {
    const [budget] = await queryRows<{ lockedAt: Date | null }>(
      manager,
      'SELECT locked_at AS "lockedAt" FROM confirmation_code_budgets WHERE partner_id = $1 FOR UPDATE',
      [partnerId],
    );
    if (!budget) return { lockedAt: null, wrongCodesCleared: 0 };
    const [{ count }] = await queryRows<{ count: number }>(
      manager,
      'WITH cleared AS (DELETE FROM wrong_confirmation_codes WHERE partner_id = $1 RETURNING 1) SELECT count(*)::int AS count FROM cleared',
      [partnerId],
    );
    await manager.query(
      'UPDATE confirmation_code_budgets SET locked_at = NULL, cleared_at = $2 WHERE partner_id = $1',
      [partnerId, clearedAt],
    );
    return { lockedAt: budget.lockedAt, wrongCodesCleared: count };
  }

  /**
   * The partner's budget row, made on its first wrong code, row-locked until the
   * transaction ends (ON CONFLICT DO UPDATE waits for a concurrent holder and then
   * reads its committed row). Answers whether the partner was locked already.
   */
  private async lockBudgetRow(manager: EntityManager, partnerId: string): Promise<boolean> {
    const [row] = await queryRows<{ locked: boolean }>(
      manager,
      `INSERT INTO confirmation_code_budgets (partner_id) VALUES ($1)
       ON CONFLICT (partner_id) DO UPDATE SET partner_id = EXCLUDED.partner_id
       RETURNING locked_at IS NOT NULL AS locked`,
      [partnerId],
    );
    return row.locked;
  }
}
