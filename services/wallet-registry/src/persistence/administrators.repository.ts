import { randomUUID } from 'node:crypto';
import { EntityManager, queryRows } from '@platform/persistence';

export interface Administrator {
  adminId: string;
  partnerId: string;
  email: string;
  name: string;
  status: 'active' | 'removed';
  createdAt: Date;
}

interface AdministratorRow {
  id: string;
  partner_id: string;
  email: string;
  name: string;
  status: 'active' | 'removed';
  created_at: Date;
}

const COLUMNS = 'id, partner_id, email, name, status, created_at';
/** A partner's active administrators are few; a listing is bounded anyway. */
export const ADMINS_LISTED_MAX = 500;

function toAdministrator(row: AdministratorRow): Administrator {
  return { adminId: row.id, partnerId: row.partner_id, email: row.email, name: row.name, status: row.status, createdAt: row.created_at };
}

/** Statements on `administrators`; each runs in the caller's transaction (manager). */
export class AdministratorsRepository {
  /** Inserts unless an active administrator has the e-mail; then returns that one. */
  async insertOrFindActive(manager: EntityManager, admin: { partnerId: string; email: string; name: string }): Promise<{ admin: Administrator; created: boolean }> {
    const [inserted] = await queryRows<AdministratorRow>(manager,
      `INSERT INTO administrators (id, partner_id, email, name, status) VALUES ($1, $2, $3, $4, 'active')
       ON CONFLICT (partner_id, email) WHERE status = 'active' DO NOTHING RETURNING ${COLUMNS}`,
      [randomUUID(), admin.partnerId, admin.email, admin.name]);
    if (inserted) return { admin: toAdministrator(inserted), created: true };
    const [existing] = await queryRows<AdministratorRow>(manager,
      `SELECT ${COLUMNS} FROM administrators WHERE partner_id = $1 AND email = $2 AND status = 'active'`, [admin.partnerId, admin.email]);
    if (!existing) throw new Error('administrator conflict without an active row');
    return { admin: toAdministrator(existing), created: false };
  }

  async listActive(manager: EntityManager, partnerId: string): Promise<Administrator[]> {
    const rows = await queryRows<AdministratorRow>(manager,
      `SELECT ${COLUMNS} FROM administrators WHERE partner_id = $1 AND status = 'active' ORDER BY created_at, id LIMIT $2`,
      [partnerId, ADMINS_LISTED_MAX]);
    return rows.map(toAdministrator);
  }

  /** Marks the administrator removed; null when unknown, foreign or already removed. */
  async remove(manager: EntityManager, partnerId: string, adminId: string): Promise<Administrator | null> {
    const [row] = await queryRows<AdministratorRow>(manager,
      `UPDATE administrators SET status = 'removed', removed_at = now()
       WHERE id = $1 AND partner_id = $2 AND status = 'active' RETURNING ${COLUMNS}`, [adminId, partnerId]);
    return row ? toAdministrator(row) : null;
  }

  /**
   * The code recipient: the earliest-registered active administrator, held
   * FOR SHARE so a concurrent removal waits for this transaction and then
   * lapses the code it issued.
   */
  async lockCodeRecipient(manager: EntityManager, partnerId: string): Promise<Administrator | null> {
    const [row] = await queryRows<AdministratorRow>(manager,
      `SELECT ${COLUMNS} FROM administrators WHERE partner_id = $1 AND status = 'active'
       ORDER BY created_at, id LIMIT 1 FOR SHARE`, [partnerId]);
    return row ? toAdministrator(row) : null;
  }

  /** The code recipient, read without a lock (for callers outside a registration). */
  async firstActive(manager: EntityManager, partnerId: string): Promise<Administrator | null> {
    const [row] = await queryRows<AdministratorRow>(manager,
      `SELECT ${COLUMNS} FROM administrators WHERE partner_id = $1 AND status = 'active' ORDER BY created_at, id LIMIT 1`, [partnerId]);
    return row ? toAdministrator(row) : null;
  }

  async findEmail(manager: EntityManager, adminId: string): Promise<string | null> {
    const [row] = await queryRows<{ email: string }>(manager, 'SELECT email FROM administrators WHERE id = $1', [adminId]);
    return row ? row.email : null;
  }
}
