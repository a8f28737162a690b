/**
 * cap_usages and the partner row lock the daily cap serialises on. Every
 * method takes the transaction's manager: a reservation is only sound inside
 * the transaction that holds the partner_profiles lock.
 */
import type { EntityManager } from '@platform/persistence';
import { queryRows } from '@platform/persistence';

export interface CapUsageRow {
  usageId: string;
  partnerId: string;
  source: string;
  amountKes: string;
  givenCurrency: 'KES' | 'USDT';
  givenAmount: string;
  createdAt: Date;
  releasedAt: Date | null;
}

export interface NewCapUsage {
  usageId: string;
  partnerId: string;
  source: string;
  amountKes: string;
  givenCurrency: 'KES' | 'USDT';
  givenAmount: string;
}

const COLUMNS = `usage_id AS "usageId", partner_id AS "partnerId", source, amount_kes::text AS "amountKes",
  given_currency AS "givenCurrency", given_amount::text AS "givenAmount", created_at AS "createdAt", released_at AS "releasedAt"`;

/** The partner's caps, with its profile row locked until the transaction ends; null without a profile. */
export async function lockPartnerCaps(manager: EntityManager, partnerId: string): Promise<{ perOrderCapKes: string; dailyCapKes: string } | null> {
  const [row] = await queryRows<{ perOrderCapKes: string; dailyCapKes: string }>(
    manager,
    'SELECT per_order_cap_kes::text AS "perOrderCapKes", daily_cap_kes::text AS "dailyCapKes" FROM partner_profiles WHERE partner_id = $1 FOR UPDATE',
    [partnerId],
  );
  return row ?? null;
}

export async function findCapUsage(manager: EntityManager, usageId: string): Promise<CapUsageRow | null> {
  const [row] = await queryRows<CapUsageRow>(manager, `SELECT ${COLUMNS} FROM cap_usages WHERE usage_id = $1`, [usageId]);
  return row ?? null;
}

/** KES of the partner's unreleased usages reserved within the last `windowMs`. */
export async function sumOpenCapUsages(manager: EntityManager, partnerId: string, windowMs: number): Promise<string> {
  const [row] = await queryRows<{ total: string }>(
    manager,
    `SELECT coalesce(sum(amount_kes), 0)::text AS total FROM cap_usages
      WHERE partner_id = $1 AND released_at IS NULL AND created_at > now() - make_interval(secs => $2::double precision / 1000)`,
    [partnerId, windowMs],
  );
  return row.total;
}

/** Inserts the usage; null when the usage id already exists (the caller compares bodies). */
export async function insertCapUsage(manager: EntityManager, usage: NewCapUsage): Promise<CapUsageRow | null> {
  const [row] = await queryRows<CapUsageRow>(
    manager,
    `INSERT INTO cap_usages (usage_id, partner_id, source, amount_kes, given_currency, given_amount)
     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (usage_id) DO NOTHING RETURNING ${COLUMNS}`,
    [usage.usageId, usage.partnerId, usage.source, usage.amountKes, usage.givenCurrency, usage.givenAmount],
  );
  return row ?? null;
}

/** Marks the usage released (first release wins); returns the row as it now stands, null when unknown. */
export async function releaseCapUsage(manager: EntityManager, usageId: string): Promise<CapUsageRow | null> {
  await manager.query('UPDATE cap_usages SET released_at = now() WHERE usage_id = $1 AND released_at IS NULL', [usageId]);
  return findCapUsage(manager, usageId);
}
