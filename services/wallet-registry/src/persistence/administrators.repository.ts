import { randomUUID } from 'node:crypto';
import { EntityManager, queryRows } from '@platform/persistence';
import type { CodeEligibility } from '../domain/code-eligibility';

/** An administrator row; its registration time and waiting period are the CodeEligibility part. */
export interface Administrator extends CodeEligibility {
  partnerId: string;
  email: string;
  name: string;
  status: 'active' | 'removed';
}

interface AdministratorRow {
  id: string;
  partner_id: string;
  email: string;
  name: string;
  status: 'active' | 'removed';
  created_at: Date;
  receives_codes_from: Date;
}

const COLUMNS = 'id, partner_id, email, name, status, created_at, receives_codes_from';
/**
 * A partner's active administrators are few; a listing is bounded anyway, and
 * so is every decision taken on one (the code recipient, a removal, the
 * notices of a change all look at the earliest-registered ADMINS_LISTED_MAX).
 */
export const ADMINS_LISTED_MAX = 500;

function toAdministrator(row: AdministratorRow): Administrator {
  return {
    adminId: row.id,
    partnerId: row.partner_id,
    email: row.email,
    name: row.name,
    status: row.status,
    createdAt: row.created_at,
    receivesCodesFrom: row.receives_codes_from,
  };
}

/** Statements on `administrators`; each runs in the caller's transaction (manager). */
export class AdministratorsRepository {
  /** Inserts unless an active administrator has the e-mail; then returns that one. */
  async insertOrFindActive(
    manager: EntityManager,
    admin: { partnerId: string; email: string; name: string; receivesCodesFrom: Date },
  ): Promise<{ admin: Administrator; created: boolean }> {
    const [inserted] = await queryRows<AdministratorRow>(
      manager,
      `INSERT INTO administrators (id, partner_id, email, name, status, receives_codes_from) VALUES ($1, $2, $3, $4, 'active', $5)
       ON CONFLICT (partner_id, email) WHERE status = 'active' DO NOTHING RETURNING ${COLUMNS}`,
      [randomUUID(), admin.partnerId, admin.email, admin.name, admin.receivesCodesFrom],
    );
    if (inserted) return { admin: toAdministrator(inserted), created: true };
    const [existing] = await queryRows<AdministratorRow>(
      manager,
      `SELECT ${COLUMNS} FROM administrators WHERE partner_id = $1 AND email = $2 AND status = 'active'`,
      [admin.partnerId, admin.email],
    );
    if (!existing) throw new Error('administrator conflict without an active row');
    return { admin: toAdministrator(existing), created: false };
  }

  /** Active administrators, earliest registered first (ties by id). */
  async listActive(manager: EntityManager, partnerId: string): Promise<Administrator[]> {
    const rows = await queryRows<AdministratorRow>(
      manager,
      `SELECT ${COLUMNS} FROM administrators WHERE partner_id = $1 AND status = 'active' ORDER BY created_at, id LIMIT $2`,
      [partnerId, ADMINS_LISTED_MAX],
    );
    return rows.map(toAdministrator);
  }

  /** Marks the administrator removed; null when unknown, foreign or already removed. */
  async remove(manager: EntityManager, partnerId: string, adminId: string): Promise<Administrator | null> {
    const [row] = await queryRows<AdministratorRow>(
      manager,
      `UPDATE administrators SET status = 'removed', removed_at = now()
       WHERE id = $1 AND partner_id = $2 AND status = 'active' RETURNING ${COLUMNS}`,
      [adminId, partnerId],
    );
    return row ? toAdministrator(row) : null;
  }

  /**
   * Holds a chosen code recipient FOR SHARE, so a concurrent removal waits for
   * this transaction and then lapses the code it issued. Null when it was
   * removed in the meantime (the caller chooses again).
   */
  async lockActive(manager: EntityManager, adminId: string): Promise<Administrator | null> {
    const [row] = await queryRows<AdministratorRow>(
      manager,
      `SELECT ${COLUMNS} FROM administrators WHERE id = $1 AND status = 'active' FOR SHARE`,
      [adminId],
    );
    return row ? toAdministrator(row) : null;
  }

  async findEmail(manager: EntityManager, adminId: string): Promise<string | null> {
    const [row] = await queryRows<{ email: string }>(manager, 'SELECT email FROM administrators WHERE id = $1', [
      adminId,
    ]);
    return row ? row.email : null;
  }
}
