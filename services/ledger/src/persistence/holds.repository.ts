/**
 * Hold rows and the `held` column they drive. Lock order everywhere: the hold
 * row first, then accounts in id order (journal.repository), so hold work and
 * plain entries queue instead of deadlocking.
 */
import { DataSource, DueRows, EntityManager, queryPrepared, queryPreparedIn, queryRows } from '@platform/persistence';
import { Big, Currency, CURRENCY_SCALE, formatAmount } from '@platform/money';
import type { HoldStatus } from '../domain/hold';

export interface HoldRecord {
  holdId: string;
  accountId: string;
  currency: Currency;
  amount: string;
  status: HoldStatus;
  postedAmount: string;
  expiresAt: string | null;
  entryId: string | null;
  createdAt: string;
  resolvedAt: string | null;
  metadata: Record<string, string>;
  requestHash: string;
  resolutionHash: string | null;
  /** "<service>:<kind>:<id>", or null for a hold placed without one. */
  owner: string | null;
  /** Read with the row: whether expires_at has passed by the database clock. */
  expiredNow: boolean;
}

const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const COLUMNS = `id, account_id, currency, amount::text AS amount, status, posted_amount::text AS posted_amount,
  ${iso('expires_at')} AS expires_at, entry_id, ${iso('created_at')} AS created_at, ${iso('resolved_at')} AS resolved_at,
  metadata, request_hash, resolution_hash, owner, (expires_at IS NOT NULL AND expires_at <= now()) AS expired_now`;

/**
 * The status of hold $1 as its primary key finds it, for a resolving update's WHERE:
 * compared there as `(SELECT status FROM was) = 'pending'`, a value and not a condition
 * on the table's column, it cannot make a partial index of pending holds usable, so the
 * update reads its one row by the primary key however many holds are pending. The
 * caller holds the row's lock: the status read is the status updated.
 */
const PENDING_BY_KEY = 'was AS (SELECT status FROM holds WHERE id = $1::uuid)';

interface HoldRow {
  id: string;
  account_id: string;
  currency: Currency;
  amount: string;
  status: HoldStatus;
  posted_amount: string;
  expires_at: string | null;
  entry_id: string | null;
  created_at: string;
  resolved_at: string | null;
  metadata: Record<string, string>;
  request_hash: string;
  resolution_hash: string | null;
  owner: string | null;
  expired_now: boolean;
}

function toRecord(row: HoldRow): HoldRecord {
  return {
    holdId: row.id,
    accountId: row.account_id,
    currency: row.currency,
    amount: formatAmount(new Big(row.amount), row.currency),
    status: row.status,
    postedAmount: formatAmount(new Big(row.posted_amount), row.currency),
    expiresAt: row.expires_at,
    entryId: row.entry_id,
    createdAt: row.created_at,
    resolvedAt: row.resolved_at,
    metadata: row.metadata,
    requestHash: row.request_hash,
    resolutionHash: row.resolution_hash,
    owner: row.owner,
    expiredNow: row.expired_now,
  };
}

export interface NewHold {
  holdId: string;
  accountId: string;
  currency: Currency;
  amount: Big;
  expiresAt: string | null;
  metadata: Record<string, string>;
  requestHash: string;
  owner: string | null;
}

/** A placement as the use case asks it (ledger_place_hold): the amount as the caller wrote it, its scale checked there. */
export interface HoldPlacement {
  holdId: string;
  accountId: string;
  amount: string;
  expiresAt: string | null;
  /** Judged by the caller's clock; refuses only a new hold. */
  expiresInPast: boolean;
  metadata: Record<string, string>;
  requestHash: string;
  owner: string | null;
}

export type PlacementOutcome =
  | { outcome: 'placed' | 'existing'; hold: HoldRecord }
  | { outcome: 'account_not_found' | 'bad_amount' | 'expires_in_past' | 'insufficient_funds'; hold: null };

const PLACE_HOLD_SQL = `SELECT p.outcome, ${COLUMNS}
  FROM ledger_place_hold($1::uuid, $2::uuid, $3::numeric, $4::jsonb, $5::timestamptz, $6::boolean, $7::jsonb, $8::text, $9::text) p,
       LATERAL (SELECT (p.hold).*) h`;

const SCALES = JSON.stringify(CURRENCY_SCALE);

export interface HoldResolution {
  status: Exclude<HoldStatus, 'pending'>;
  postedAmount: Big;
  entryId: string | null;
  resolutionHash: string | null;
}

/** A hold a settlement round posted: its entry and the request that resolved it. */
export interface PostedHold {
  holdId: string;
  postedAmount: Big;
  entryId: string;
  resolutionHash: string;
}

const HOLDS_LOCK_MANY_SQL = `SELECT ${COLUMNS} FROM holds WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`;

const RESOLVE_POSTED_MANY_SQL = `
  WITH was AS MATERIALIZED (SELECT id AS was_id, status AS was_status FROM holds WHERE id = ANY($1::uuid[]))
  UPDATE holds SET status = 'posted', posted_amount = r.r_posted_amount, entry_id = r.r_entry_id,
         resolution_hash = r.r_resolution_hash, resolved_at = now()
    FROM unnest($1::uuid[], $2::numeric[], $3::uuid[], $4::text[]) AS r(r_id, r_posted_amount, r_entry_id, r_resolution_hash)
    JOIN was ON was.was_id = r.r_id
   WHERE holds.id = ANY($1::uuid[]) AND holds.id = r.r_id AND was.was_status = 'pending'
  RETURNING ${COLUMNS}`;

export class HoldsRepository {
  /** Serialises placements of one hold id (the row does not exist yet to lock). */
  async lockHoldId(manager: EntityManager, holdId: string): Promise<void> {
    await manager.query("SELECT pg_advisory_xact_lock(hashtextextended('hold:' || $1, 0))", [holdId]);
  }

  async find(manager: EntityManager | DataSource, holdId: string): Promise<HoldRecord | null> {
    const [row] = await manager.query(`SELECT ${COLUMNS} FROM holds WHERE id = $1`, [holdId]);
    return row ? toRecord(row) : null;
  }

  async findForUpdate(manager: EntityManager, holdId: string): Promise<HoldRecord | null> {
    const [row] = await manager.query(`SELECT ${COLUMNS} FROM holds WHERE id = $1 FOR UPDATE`, [holdId]);
    return row ? toRecord(row) : null;
  }

  /**
   * Locks these holds in id order, in one statement (a PostHolds batch takes its locks as a
   * single post would). A settlement round's first statement: prepared on its transaction's
   * connection (the primary key serves it whatever the ids).
   */
  async findManyForUpdate(manager: EntityManager, holdIds: readonly string[]): Promise<HoldRecord[]> {
    const rows = await queryPreparedIn<HoldRow>(manager, 'holds_lock_many', HOLDS_LOCK_MANY_SQL, [holdIds]);
    return rows.map(toRecord);
  }

  /** Where claimExpired finds overdue holds: measured for the sweeper's metrics. */
  readonly expiredRows: DueRows = { table: 'holds', dueColumn: 'expires_at', where: "status = 'pending'" };

  /** Claims up to `limit` overdue pending holds; rows another replica is sweeping are skipped. */
  async claimExpired(manager: EntityManager, limit: number): Promise<HoldRecord[]> {
    const rows: HoldRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM holds WHERE status = 'pending' AND expires_at <= now()
        ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit],
    );
    return rows.map(toRecord);
  }

  /**
   * A new hold: its amount into the account's held and the hold row, in ONE statement. The
   * account row must be locked (its floor checked against it). The hold's statement trigger
   * runs at the end of the statement, so it sees held already moved.
   */
  async place(manager: EntityManager, hold: NewHold): Promise<HoldRecord> {
    const [row] = await queryRows<HoldRow>(
      manager,
      `WITH held AS (
         UPDATE accounts SET held = held + $4::numeric WHERE id = $2::uuid RETURNING id
       )
       INSERT INTO holds (id, account_id, currency, amount, expires_at, metadata, request_hash, owner)
       SELECT $1::uuid, held.id, $3::text, $4::numeric, $5::timestamptz, $6::jsonb, $7::text, $8::text FROM held
       RETURNING ${COLUMNS}`,
      [
        hold.holdId,
        hold.accountId,
        hold.currency,
        hold.amount.toString(),
        hold.expiresAt,
        JSON.stringify(hold.metadata),
        hold.requestHash,
        hold.owner,
      ],
    );
    if (!row) throw new Error(`account ${hold.accountId} vanished while a hold was placed on it`);
    return toRecord(row);
  }

  /**
   * Places the hold, or answers the one already under its id, in ONE statement run on
   * its own (its own transaction, a named prepared statement): the account row is locked
   * only for that statement and its commit (migrations/1797800000000).
   */
  async placeOrFind(dataSource: DataSource, placement: HoldPlacement): Promise<PlacementOutcome> {
    const [row] = await queryPrepared<HoldRow & { outcome: PlacementOutcome['outcome'] }>(
      dataSource,
      'ledger_place_hold',
      PLACE_HOLD_SQL,
      [
        placement.holdId,
        placement.accountId,
        placement.amount,
        SCALES,
        placement.expiresAt,
        placement.expiresInPast,
        JSON.stringify(placement.metadata),
        placement.requestHash,
        placement.owner,
      ],
    );
    if (!row) throw new Error('ledger_place_hold answered no row');
    if (row.outcome === 'placed' || row.outcome === 'existing') return { outcome: row.outcome, hold: toRecord(row) };
    return { outcome: row.outcome, hold: null };
  }

  /** Names the owner of a hold placed without one (a retry from a caller that now sends it). */
  async adoptOwner(manager: EntityManager, holdId: string, owner: string): Promise<HoldRecord> {
    const [row] = await queryRows<HoldRow>(
      manager,
      `UPDATE holds SET owner = $2 WHERE id = $1 AND owner IS NULL RETURNING ${COLUMNS}`,
      [holdId, owner],
    );
    if (!row) throw new Error(`hold ${holdId} already had an owner when adopted`);
    return toRecord(row);
  }

  /**
   * Pending holds whose owner starts with `ownerPrefix`, placed before
   * `placedBefore`, in id order after `afterHoldId` (exclusive), at most `limit`.
   */
  async listOwnedPending(
    manager: EntityManager | DataSource,
    query: { ownerPrefix: string; placedBefore: Date; afterHoldId: string | null; limit: number },
  ): Promise<HoldRecord[]> {
    const rows = await queryRows<HoldRow>(
      manager,
      `SELECT ${COLUMNS} FROM holds
        WHERE status = 'pending' AND owner IS NOT NULL AND starts_with(owner, $1) AND created_at < $2 AND ($3::uuid IS NULL OR id > $3::uuid)
        ORDER BY id LIMIT $4`,
      [query.ownerPrefix, query.placedBefore, query.afterHoldId, query.limit],
    );
    return rows.map(toRecord);
  }

  /**
   * Resolves a pending hold (the caller holds its row lock). Found by its primary key
   * alone: `status = 'pending'` in the WHERE would let the planner walk a partial index
   * of pending holds instead (every hold in flight, the more the busier the partner), so
   * the status is compared as read by a key lookup of its own (see PENDING_BY_KEY).
   */
  async resolve(manager: EntityManager, holdId: string, resolution: HoldResolution): Promise<HoldRecord> {
    const [row] = await queryRows<HoldRow>(
      manager,
      `WITH ${PENDING_BY_KEY}
       UPDATE holds SET status = $2, posted_amount = $3, entry_id = $4, resolution_hash = $5, resolved_at = now()
        WHERE id = $1 AND (SELECT status FROM was) = 'pending' RETURNING ${COLUMNS}`,
      [holdId, resolution.status, resolution.postedAmount.toString(), resolution.entryId, resolution.resolutionHash],
    );
    if (!row) throw new Error(`hold ${holdId} was not pending when resolved`);
    return toRecord(row);
  }

  /**
   * Resolves pending holds as posted, each by its entry, in ONE statement (a settlement
   * round's: the caller holds every row's lock). Each hold found by its primary key, its
   * status compared as read by a materialised key lookup of its own (see PENDING_BY_KEY).
   * Answers the holds as resolved, in no particular order.
   */
  async resolvePostedMany(manager: EntityManager, posted: readonly PostedHold[]): Promise<HoldRecord[]> {
    if (posted.length === 0) return [];
    // The round's last statement, prepared on its transaction's connection like the first.
    const rows = await queryPreparedIn<HoldRow>(manager, 'holds_resolve_posted', RESOLVE_POSTED_MANY_SQL, [
      posted.map((hold) => hold.holdId),
      posted.map((hold) => hold.postedAmount.toString()),
      posted.map((hold) => hold.entryId),
      posted.map((hold) => hold.resolutionHash),
    ]);
    if (rows.length !== posted.length)
      throw new Error(`${posted.length - rows.length} holds were not pending when posted`);
    return rows.map(toRecord);
  }

  /**
   * Voids or expires a pending hold: its amount out of the account's held and the hold
   * resolved, in ONE statement (the hold row locked first, then the account by this update:
   * the lock order). The hold's statement trigger sees held already moved. The hold is
   * found by its primary key alone, its status compared as read (see resolve).
   */
  async release(
    manager: EntityManager,
    hold: Pick<HoldRecord, 'holdId' | 'accountId' | 'amount'>,
    status: 'voided' | 'expired',
    resolutionHash: string | null,
  ): Promise<HoldRecord> {
    const [row] = await queryRows<HoldRow>(
      manager,
      `WITH ${PENDING_BY_KEY}, released AS (
         UPDATE accounts SET held = held - $3::numeric WHERE id = $2::uuid RETURNING id AS released_account_id
       )
       UPDATE holds SET status = $4, posted_amount = 0, entry_id = NULL, resolution_hash = $5, resolved_at = now()
         FROM released
        WHERE id = $1::uuid AND account_id = released.released_account_id AND (SELECT status FROM was) = 'pending'
       RETURNING ${COLUMNS}`,
      [hold.holdId, hold.accountId, new Big(hold.amount).toString(), status, resolutionHash],
    );
    if (!row) throw new Error(`hold ${hold.holdId} was not pending when released`);
    return toRecord(row);
  }
}
