import { EntityManager, queryRows } from '@platform/persistence';
import { ApprovalCode, CODE_ATTEMPTS_MAX, CodeStatus } from '../domain/approval-code';

export type StoredCode = ApprovalCode & { codeHash: string };

interface CodeRow {
  id: string;
  wallet_id: string;
  admin_id: string;
  code_hash: string;
  status: CodeStatus;
  attempts: number;
  expires_at: Date;
}

const COLUMNS = 'id, wallet_id, admin_id, code_hash, status, attempts, expires_at';

function toCode(row: CodeRow): StoredCode {
  return {
    codeId: row.id,
    walletId: row.wallet_id,
    adminId: row.admin_id,
    codeHash: row.code_hash,
    status: row.status,
    attempts: row.attempts,
    expiresAt: row.expires_at,
  };
}

/** Statements on `wallet_codes`; each runs in the caller's transaction (manager). */
export class WalletCodesRepository {
  async latest(manager: EntityManager, walletId: string): Promise<StoredCode | null> {
    const [row] = await queryRows<CodeRow>(
      manager,
      `SELECT ${COLUMNS} FROM wallet_codes WHERE wallet_id = $1 ORDER BY created_at DESC, id LIMIT 1`,
      [walletId],
    );
    return row ? toCode(row) : null;
  }

  /** Closes a still-live but expired code before a fresh one takes its place. */
  async supersedeLive(manager: EntityManager, walletId: string): Promise<void> {
    await manager.query(
      `UPDATE wallet_codes SET status = 'superseded', closed_at = now() WHERE wallet_id = $1 AND status = 'live'`,
      [walletId],
    );
  }

  async insert(
    manager: EntityManager,
    code: { codeId: string; walletId: string; adminId: string; codeHash: string; expiresAt: Date },
  ): Promise<void> {
    await manager.query(
      `INSERT INTO wallet_codes (id, wallet_id, admin_id, code_hash, status, expires_at) VALUES ($1, $2, $3, $4, 'live', $5)`,
      [code.codeId, code.walletId, code.adminId, code.codeHash, code.expiresAt],
    );
  }

  /**
   * Counts one wrong attempt, atomically: only a live code under the limit
   * counts, and the attempt that reaches the limit cancels the code. Null when
   * nothing was counted (the code was no longer live), so parallel guesses can
   * never exceed the limit.
   */
  async countWrongAttempt(
    manager: EntityManager,
    codeId: string,
  ): Promise<{ attempts: number; status: CodeStatus } | null> {
    const [row] = await queryRows<{ attempts: number; status: CodeStatus }>(
      manager,
      `UPDATE wallet_codes SET attempts = attempts + 1,
         status = CASE WHEN attempts + 1 >= $2 THEN 'cancelled' ELSE status END,
         closed_at = CASE WHEN attempts + 1 >= $2 THEN now() ELSE closed_at END
       WHERE id = $1 AND status = 'live' AND attempts < $2 RETURNING attempts, status`,
      [codeId, CODE_ATTEMPTS_MAX],
    );
    return row ?? null;
  }

  /** Marks the code used; false when it was no longer live. */
  async markUsed(manager: EntityManager, codeId: string): Promise<boolean> {
    const rows = await queryRows<{ id: string }>(
      manager,
      `UPDATE wallet_codes SET status = 'used', closed_at = now() WHERE id = $1 AND status = 'live' RETURNING id`,
      [codeId],
    );
    return rows.length === 1;
  }

  /** Lapses every live code sent to the administrator; returns how many. */
  async lapseForAdmin(manager: EntityManager, adminId: string): Promise<number> {
    const rows = await queryRows<{ id: string }>(
      manager,
      `UPDATE wallet_codes SET status = 'lapsed', closed_at = now() WHERE admin_id = $1 AND status = 'live' RETURNING id`,
      [adminId],
    );
    return rows.length;
  }

  /** Lapses the wallet's live code when the wallet is revoked. */
  async lapseForWallet(manager: EntityManager, walletId: string): Promise<void> {
    await manager.query(
      `UPDATE wallet_codes SET status = 'lapsed', closed_at = now() WHERE wallet_id = $1 AND status = 'live'`,
      [walletId],
    );
  }
}
