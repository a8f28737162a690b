/** confirmations: the code only ever as its HMAC. Counting and status moves are conditional UPDATEs. */
import type { EntityManager } from '@platform/persistence';
import { queryRows } from '@platform/persistence';
import type { Confirmation, SubjectType } from '../domain/confirmation-code';
import { CONFIRMATION_ATTEMPTS_MAX } from '../domain/confirmation-code';

const COLUMNS = `confirmation_id AS "confirmationId", partner_id AS "partnerId", subject_type AS "subjectType", subject_id AS "subjectId",
  code_hash AS "codeHash", delivered_to AS "deliveredTo", status, attempts, resends, code_issue AS "codeIssue",
  last_issue AS "lastIssue", expires_at AS "expiresAt",
  resend_available_at AS "resendAvailableAt", created_at AS "createdAt", verified_at AS "verifiedAt"`;

export interface NewConfirmation {
  confirmationId: string;
  partnerId: string;
  subjectType: SubjectType;
  subjectId: string;
  codeHash: string;
  deliveredTo: string;
  expiresAt: Date;
  resendAvailableAt: Date;
}

/** A code as a confirmation holds it: its issue, its HMAC, its expiry and the cooldown before the next. */
export interface IssuedCode {
  issue: number;
  codeHash: string;
  expiresAt: Date;
  resendAvailableAt: Date;
}

export class ConfirmationsRepository {
  async insert(manager: EntityManager, confirmation: NewConfirmation): Promise<Confirmation> {
    const [row] = await queryRows<Confirmation>(
      manager,
      `INSERT INTO confirmations (confirmation_id, partner_id, subject_type, subject_id, code_hash, delivered_to, status, expires_at, resend_available_at)
       VALUES ($1, $2, $3, $4, $5, $6, 'live', $7, $8) RETURNING ${COLUMNS}`,
      [
        confirmation.confirmationId,
        confirmation.partnerId,
        confirmation.subjectType,
        confirmation.subjectId,
        confirmation.codeHash,
        confirmation.deliveredTo,
        confirmation.expiresAt,
        confirmation.resendAvailableAt,
      ],
    );
    return row;
  }

  async find(manager: EntityManager, confirmationId: string): Promise<Confirmation | null> {
    const [row] = await queryRows<Confirmation>(
      manager,
      `SELECT ${COLUMNS} FROM confirmations WHERE confirmation_id = $1`,
      [confirmationId],
    );
    return row ?? null;
  }

  /** The confirmations with these ids, in one query (a page of transfers shows each one's). */
  async findMany(manager: EntityManager, confirmationIds: readonly string[]): Promise<Confirmation[]> {
    if (confirmationIds.length === 0) return [];
    return queryRows<Confirmation>(
      manager,
      `SELECT ${COLUMNS} FROM confirmations WHERE confirmation_id = ANY($1::uuid[])`,
      [confirmationIds],
    );
  }

  /** The partner's confirmation, row-locked for the rest of the transaction. */
  async lock(manager: EntityManager, partnerId: string, confirmationId: string): Promise<Confirmation | null> {
    const [row] = await queryRows<Confirmation>(
      manager,
      `SELECT ${COLUMNS} FROM confirmations WHERE confirmation_id = $1 AND partner_id = $2 FOR UPDATE`,
      [confirmationId, partnerId],
    );
    return row ?? null;
  }

  async markUsed(manager: EntityManager, confirmationId: string, verifiedAt: Date): Promise<boolean> {
    const rows = await queryRows(
      manager,
      "UPDATE confirmations SET status = 'used', verified_at = $2 WHERE confirmation_id = $1 AND status = 'live' RETURNING confirmation_id",
      [confirmationId, verifiedAt],
    );
    return rows.length === 1;
  }

  /** Counts one wrong code; the fifth locks. Answers the status after counting (null: nothing counted, not live). */
  async countWrongAttempt(manager: EntityManager, confirmationId: string): Promise<'live' | 'locked' | null> {
    const [row] = await queryRows<{ status: 'live' | 'locked' }>(
      manager,
      `UPDATE confirmations SET attempts = attempts + 1, status = CASE WHEN attempts + 1 >= $2 THEN 'locked' ELSE status END
        WHERE confirmation_id = $1 AND status = 'live' AND attempts < $2 RETURNING status`,
      [confirmationId, CONFIRMATION_ATTEMPTS_MAX],
    );
    return row?.status ?? null;
  }

  /**
   * A fresh code under a fresh issue, counted as a resend. Answers null when
   * the confirmation is no longer live or the issue was already handed out.
   */
  async reissue(manager: EntityManager, confirmationId: string, code: IssuedCode): Promise<Confirmation | null> {
    const [row] = await queryRows<Confirmation>(
      manager,
      `UPDATE confirmations SET code_hash = $3, code_issue = $2, last_issue = $2, resends = resends + 1,
          expires_at = $4, resend_available_at = $5
        WHERE confirmation_id = $1 AND status = 'live' AND last_issue < $2 RETURNING ${COLUMNS}`,
      [confirmationId, code.issue, code.codeHash, code.expiresAt, code.resendAvailableAt],
    );
    return row ?? null;
  }

  /**
   * Gives back the resend that issued `issue` (its code was not sent): the
   * previous code, expiry and cooldown stand again and it no longer counts.
   * Fenced on the issue and on the confirmation being live, so it undoes
   * neither a later resend nor a confirmation made meanwhile. Answers whether
   * it gave the resend back.
   */
  async giveBackResend(
    manager: EntityManager,
    confirmationId: string,
    issue: number,
    previous: IssuedCode,
  ): Promise<boolean> {
    const rows = await queryRows(
      manager,
      `UPDATE confirmations SET code_hash = $4, code_issue = $3, resends = resends - 1,
          expires_at = $5, resend_available_at = $6
        WHERE confirmation_id = $1 AND code_issue = $2 AND status = 'live' AND resends > 0 RETURNING confirmation_id`,
      [confirmationId, issue, previous.issue, previous.codeHash, previous.expiresAt, previous.resendAvailableAt],
    );
    return rows.length === 1;
  }

  /** live (or locked) → expired. Answers false when it was used meanwhile. */
  async markExpired(manager: EntityManager, confirmationId: string): Promise<boolean> {
    const [row] = await queryRows<{ status: string }>(
      manager,
      "UPDATE confirmations SET status = CASE WHEN status = 'used' THEN status ELSE 'expired' END WHERE confirmation_id = $1 RETURNING status",
      [confirmationId],
    );
    return row?.status === 'expired';
  }

  async delete(manager: EntityManager, confirmationId: string): Promise<void> {
    await manager.query("DELETE FROM confirmations WHERE confirmation_id = $1 AND status <> 'used'", [confirmationId]);
  }
}
