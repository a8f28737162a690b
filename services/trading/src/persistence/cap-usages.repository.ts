/**
 * cap_usages, the partner's cap window and the partner row lock the daily cap
 * serialises on. Every reservation method takes the transaction's manager: a
 * reservation is only sound inside the transaction that holds the
 * partner_profiles lock and then the cap_windows lock, in that order (the
 * order the database triggers on cap_usages take them in too).
 *
 * cap_windows and cap_usage_buckets are kept by those triggers on every
 * insert, release or delete of a usage; this code only moves a window forward
 * (advanceWindow). Times are passed in, never taken from the database's
 * clock, so one clock decides the window (migrations/1732710000000-cap-windows.ts).
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
  /** The time it counts at (its minute's bucket). */
  createdAt: Date;
}

/** A partner's window: KES of its unreleased usages in minutes from `countedFrom` on. */
export interface CapWindowRow {
  openKes: string;
  countedFrom: Date;
}

const COLUMNS = `usage_id AS "usageId", partner_id AS "partnerId", source, amount_kes::text AS "amountKes",
  given_currency AS "givenCurrency", given_amount::text AS "givenAmount", created_at AS "createdAt", released_at AS "releasedAt"`;

/** Stateless: every method runs in the caller's transaction (its manager). */
export class CapUsagesRepository {
  /** The partner's caps, with its profile row locked until the transaction ends; null without a profile. */
  async lockPartnerCaps(
    manager: EntityManager,
    partnerId: string,
  ): Promise<{ perOrderCapKes: string; dailyCapKes: string } | null> {
    const [row] = await queryRows<{ perOrderCapKes: string; dailyCapKes: string }>(
      manager,
      'SELECT per_order_cap_kes::text AS "perOrderCapKes", daily_cap_kes::text AS "dailyCapKes" FROM partner_profiles WHERE partner_id = $1 FOR UPDATE',
      [partnerId],
    );
    return row ?? null;
  }

  /**
   * The partner's window, locked until the transaction ends (after the partner's
   * profile row); null when no usage of the partner has been counted yet.
   */
  async lockWindow(manager: EntityManager, partnerId: string): Promise<CapWindowRow | null> {
    const [row] = await queryRows<CapWindowRow>(
      manager,
      'SELECT open_kes::text AS "openKes", counted_from AS "countedFrom" FROM cap_windows WHERE partner_id = $1 FOR UPDATE',
      [partnerId],
    );
    return row ?? null;
  }

  /**
   * Moves the locked window's start from `countedFrom` to `newCountedFrom`: the
   * buckets in between leave it (deleted, their KES subtracted). Reads only
   * those buckets (a primary-key range), so each bucket is read once in its
   * life. Returns the window's KES after the move.
   */
  async advanceWindow(
    manager: EntityManager,
    partnerId: string,
    countedFrom: Date,
    newCountedFrom: Date,
  ): Promise<string> {
    const [row] = await queryRows<{ openKes: string }>(
      manager,
      `WITH expired AS (
         DELETE FROM cap_usage_buckets WHERE partner_id = $1 AND bucket_start >= $2 AND bucket_start < $3 RETURNING reserved_kes
       )
       UPDATE cap_windows SET open_kes = open_kes - (SELECT coalesce(sum(reserved_kes), 0) FROM expired), counted_from = $3
        WHERE partner_id = $1 RETURNING open_kes::text AS "openKes"`,
      [partnerId, countedFrom, newCountedFrom],
    );
    if (!row) throw new Error('cap window vanished under its lock');
    return row.openKes;
  }

  /**
   * KES a reservation whose window starts at `countedFrom` would find in use,
   * without moving or locking anything: the window's total less its buckets
   * before `countedFrom`. One consistent read; 0 without a window.
   */
  async readOpenKes(manager: EntityManager, partnerId: string, countedFrom: Date): Promise<string> {
    const [row] = await queryRows<{ openKes: string }>(
      manager,
      `SELECT (w.open_kes - coalesce((SELECT sum(b.reserved_kes) FROM cap_usage_buckets b
                                      WHERE b.partner_id = w.partner_id AND b.bucket_start >= w.counted_from AND b.bucket_start < $2), 0))::text AS "openKes"
         FROM cap_windows w WHERE w.partner_id = $1`,
      [partnerId, countedFrom],
    );
    return row?.openKes ?? '0';
  }

  async find(manager: EntityManager, usageId: string): Promise<CapUsageRow | null> {
    const [row] = await queryRows<CapUsageRow>(manager, `SELECT ${COLUMNS} FROM cap_usages WHERE usage_id = $1`, [
      usageId,
    ]);
    return row ?? null;
  }

  /** Inserts the usage (the triggers count it in its minute); null when the usage id already exists (the caller compares bodies). */
  async insert(manager: EntityManager, usage: NewCapUsage): Promise<CapUsageRow | null> {
    const [row] = await queryRows<CapUsageRow>(
      manager,
      `INSERT INTO cap_usages (usage_id, partner_id, source, amount_kes, given_currency, given_amount, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (usage_id) DO NOTHING RETURNING ${COLUMNS}`,
      [
        usage.usageId,
        usage.partnerId,
        usage.source,
        usage.amountKes,
        usage.givenCurrency,
        usage.givenAmount,
        usage.createdAt,
      ],
    );
    return row ?? null;
  }

  /**
   * Marks the usage released (first release wins; the triggers take its KES out
   * of its minute's bucket and the window, once); returns the row as it now
   * stands, null when unknown. The release answers with RETURNING; only a
   * usage already released (or unknown) is read, in a statement of its own so
   * that it sees a release a concurrent twin has just committed.
   */
  async release(manager: EntityManager, usageId: string): Promise<CapUsageRow | null> {
    const [released] = await queryRows<CapUsageRow>(
      manager,
      `UPDATE cap_usages SET released_at = now() WHERE usage_id = $1 AND released_at IS NULL RETURNING ${COLUMNS}`,
      [usageId],
    );
    return released ?? this.find(manager, usageId);
  }
}
