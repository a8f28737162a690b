import { randomUUID } from 'node:crypto';
import { DataSource, DueRows, EntityManager, queryRows } from '@platform/persistence';
import type { AdminChange, AdminNotice } from '../domain/admin-notice';

interface DueNoticeRow {
  id: string;
  partner_id: string;
  change: AdminChange;
  attempts: number;
  created_at: Date;
  admin_id: string;
  admin_name: string;
  admin_email: string;
  admin_receives_codes_from: Date;
  recipient_email: string;
  lease_token: string;
}

/** A stored error is a refusal code or a short reason, never a message that could quote an address. */
const LAST_ERROR_LENGTH_MAX = 200;

function toNotice(row: DueNoticeRow): AdminNotice {
  return {
    noticeId: row.id,
    partnerId: row.partner_id,
    change: row.change,
    attempts: row.attempts,
    changedAt: row.created_at,
    admin: {
      adminId: row.admin_id,
      name: row.admin_name,
      email: row.admin_email,
      receivesCodesFrom: row.admin_receives_codes_from,
    },
    recipientEmail: row.recipient_email,
    leaseToken: row.lease_token,
  };
}

/**
 * Statements on `admin_notices`, the outbox of the administrator-change
 * e-mails: written in the change's transaction, claimed and sent afterwards.
 */
export class AdminNoticesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** One pending notice per administrator to tell, in the caller's transaction; a repeat of the same change adds nothing. */
  async enqueue(
    manager: EntityManager,
    change: { partnerId: string; change: AdminChange; adminId: string; recipientAdminIds: readonly string[] },
  ): Promise<void> {
    if (change.recipientAdminIds.length === 0) return;
    const ids = change.recipientAdminIds.map(() => randomUUID());
    await manager.query(
      `INSERT INTO admin_notices (id, partner_id, change, admin_id, recipient_admin_id)
       SELECT notice.id, $1, $2, $3, notice.recipient_admin_id
       FROM unnest($4::uuid[], $5::uuid[]) AS notice (id, recipient_admin_id)
       ON CONFLICT (admin_id, change, recipient_admin_id) DO NOTHING`,
      [change.partnerId, change.change, change.adminId, ids, change.recipientAdminIds],
    );
  }

  /** Where claimDue finds due notices: measured for the notice worker's metrics. */
  readonly dueRows: DueRows = {
    table: 'admin_notices',
    dueColumn: 'next_attempt_at',
    where: "status = 'pending'",
    idColumn: 'id',
    attemptsColumn: 'attempts',
  };

  /**
   * Claims up to `limit` due notices (FOR UPDATE SKIP LOCKED, so replicas
   * share the work) and leases them by moving their next attempt `leaseMs`
   * ahead (renewed by the live owner; a replica that dies mid-send leaves them
   * to be retaken once its last renewal's lease passed). Each comes with its
   * lease token, the timer value written.
   */
  async claimDue(manager: EntityManager, limit: number, leaseMs: number): Promise<AdminNotice[]> {
    const rows = await queryRows<DueNoticeRow>(
      manager,
      `UPDATE admin_notices AS notice
       SET next_attempt_at = now() + make_interval(secs => $2::double precision / 1000), attempts = notice.attempts + 1
       FROM administrators AS admin, administrators AS recipient
       WHERE notice.id IN (SELECT id FROM admin_notices WHERE status = 'pending' AND next_attempt_at <= now()
                           ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
         AND admin.id = notice.admin_id AND recipient.id = notice.recipient_admin_id
       RETURNING notice.id, notice.partner_id, notice.change, notice.attempts, notice.created_at, admin.id AS admin_id,
                 admin.name AS admin_name, admin.email AS admin_email, admin.receives_codes_from AS admin_receives_codes_from,
                 recipient.email AS recipient_email, notice.next_attempt_at::text AS lease_token`,
      [limit, leaseMs],
    );
    return rows.map(toNotice);
  }

  async markSent(noticeId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE admin_notices SET status = 'sent', closed_at = now(), last_error = NULL WHERE id = $1 AND status = 'pending'`,
      [noticeId],
    );
  }

  /** Puts the next try `delayMs` from now, keeping why this one failed. */
  async retryLater(noticeId: string, delayMs: number, error: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE admin_notices SET next_attempt_at = now() + make_interval(secs => $2::double precision / 1000), last_error = $3
       WHERE id = $1 AND status = 'pending'`,
      [noticeId, delayMs, error.slice(0, LAST_ERROR_LENGTH_MAX)],
    );
  }

  async markFailed(noticeId: string, error: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE admin_notices SET status = 'failed', closed_at = now(), last_error = $2 WHERE id = $1 AND status = 'pending'`,
      [noticeId, error.slice(0, LAST_ERROR_LENGTH_MAX)],
    );
  }
}
