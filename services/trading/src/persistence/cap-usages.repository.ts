/**
 * cap_usages, the partner's cap window and the reservation that serialises on
 * it. A reservation is one statement, cap_reserve (migrations/
 * 1796900000000-cap-reserve-one-statement.ts): it locks the partner's
 * cap_windows row, moves the window to the reservation's minute, checks the
 * cap and inserts the usage, so the window row is locked only from that
 * statement to the caller's commit.
 *
 * cap_windows and cap_usage_buckets are kept by the triggers on cap_usages on
 * every insert, release or delete of a usage (migrations/1732710000000-cap-windows.ts).
 * Times are passed in, never taken from the database's clock, so one clock
 * decides the window.
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

/** What cap_reserve answers: the usage counted now, the usage already under this id, or a refusal. */
export type CapReservation =
  | { outcome: 'reserved'; usage: CapUsageRow }
  | { outcome: 'existing'; usage: CapUsageRow }
  | { outcome: 'exceeded'; usage: null }
  | { outcome: 'partner_not_found'; usage: null };

const RESERVE_SQL = `SELECT r.outcome, ${COLUMNS}
  FROM cap_reserve($1::uuid, $2::uuid, $3, $4::numeric, $5, $6::numeric, $7::timestamptz, $8::boolean) r,
       LATERAL (SELECT (r.counted).*) u`;

/** Stateless: every method runs in the caller's transaction (its manager). */
export class CapUsagesRepository {
  /**
   * Counts the usage against the partner's cap at `now` (or at the window's
   * latest minute when `now` is earlier), in one statement. `fresh`: the id was
   * drawn just now, so no usage can already carry it and none is looked for.
   */
  async reserve(manager: EntityManager, usage: NewCapUsage, now: Date, fresh: boolean): Promise<CapReservation> {
    const [row] = await queryRows<CapUsageRow & { outcome: CapReservation['outcome'] }>(manager, RESERVE_SQL, [
      usage.usageId,
      usage.partnerId,
      usage.source,
      usage.amountKes,
      usage.givenCurrency,
      usage.givenAmount,
      now,
      fresh,
    ]);
    if (!row) throw new Error('cap_reserve answered no row');
    const { outcome, ...counted } = row;
    if (outcome === 'reserved' || outcome === 'existing') return { outcome, usage: counted };
    return { outcome, usage: null };
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
