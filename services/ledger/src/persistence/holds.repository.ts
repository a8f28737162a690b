/**
 * Hold rows and the `held` column they drive. Lock order everywhere: the hold
 * row first, then accounts in id order (journal.repository), so hold work and
 * plain entries queue instead of deadlocking.
 */
import { DataSource, DueRows, EntityManager, queryRows } from '@platform/persistence';
import { Big, Currency, formatAmount } from '@platform/money';
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

export interface HoldResolution {
  status: Exclude<HoldStatus, 'pending'>;
  postedAmount: Big;
  entryId: string | null;
  resolutionHash: string | null;
}

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

  /** Locks these holds in id order, in one statement (a PostHolds batch takes its locks as a single post would). */
  async findManyForUpdate(manager: EntityManager, holdIds: readonly string[]): Promise<HoldRecord[]> {
    const rows: HoldRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM holds WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`,
      [holdIds],
    );
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
