/**
 * How many rows of a worker are due and how late the oldest is, read from the
 * rows themselves for the worker's metrics (worker_due_rows, worker_lag_seconds).
 * A row is due when its timer column has passed and it matches the claim's own
 * condition; a claimed row's timer is moved ahead by its lease, so rows a
 * replica holds are not due. The query walks the worker's due index in order and
 * stops at DUE_ROWS_COUNTED_MAX rows, so it stays cheap whatever the backlog.
 */
import type { DataSource, EntityManager } from 'typeorm';
import { leaseTokenSelect } from './lease';

/** Due rows counted at most by one measurement. */
export const DUE_ROWS_COUNTED_MAX = 10_000;

/** Where a worker's timers are: the same table, column and condition as its claim. */
export interface DueRows {
  table: string;
  /** The timer column (`next_action_at`, `expires_at`, …): due once it is in the past. */
  dueColumn: string;
  /** Extra SQL condition of the claim (`status = 'pending'`), written in code, never from input. */
  where?: string;
  /** The row's key: with it, claims a step could not work on are given back at once (releaseClaims). */
  idColumn?: string;
  /** A counter the claim raises (`attempts`): lowered again when a claim is given back, so it counts only real tries. */
  attemptsColumn?: string;
}

export interface DueRowsMeasurement {
  dueRows: number;
  oldestDueAgeMs: number;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

export function dueRowsSql(rows: DueRows): string {
  if (!IDENTIFIER.test(rows.table) || !IDENTIFIER.test(rows.dueColumn))
    throw new Error(`not an identifier: ${rows.table}.${rows.dueColumn}`);
  const condition = rows.where ? ` AND (${rows.where})` : '';
  return `SELECT count(*)::int AS due_rows,
            COALESCE(floor(extract(epoch FROM now() - min(due_at)) * 1000), 0)::bigint AS oldest_due_age_ms
     FROM (SELECT ${rows.dueColumn} AS due_at FROM ${rows.table}
           WHERE ${rows.dueColumn} <= now()${condition} ORDER BY ${rows.dueColumn} LIMIT $1) due`;
}

/** How a claim takes its due rows: their key, the columns it returns, and what else it sets on each. */
export interface DueClaim {
  /** The key column the claim locks rows by. */
  idColumn: string;
  /** The RETURNING list (written in code). */
  returning: string;
  /** Extra SET assignments (`attempts = attempts + 1`), written in code, never from input. */
  alsoSet?: string;
}

/**
 * The claim of a worker's due rows: locks up to $1 of them in timer order,
 * skipping rows another replica holds, and leases them $2 ms ahead (their
 * timer moves, so they are no longer due) in one statement. Each row comes
 * back with its lease token (`leaseToken`, the timer value written, lease.ts),
 * which its owner renews the lease by and fences its final commit with.
 */
export function claimDueSql(rows: DueRows, claim: DueClaim): string {
  if (!IDENTIFIER.test(claim.idColumn)) throw new Error(`not an identifier: ${claim.idColumn}`);
  dueRowsSql(rows); // checks the table and the timer column
  const { table, dueColumn } = rows;
  const condition = rows.where ? ` AND (${rows.where})` : '';
  const alsoSet = claim.alsoSet ? `, ${claim.alsoSet}` : '';
  return `UPDATE ${table} SET ${dueColumn} = now() + make_interval(secs => $2::double precision / 1000)${alsoSet}
        WHERE ${claim.idColumn} IN (SELECT ${claim.idColumn} FROM ${table} WHERE ${dueColumn} <= now()${condition}
                               ORDER BY ${dueColumn} LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING ${claim.returning}, ${leaseTokenSelect(dueColumn)}`;
}

/**
 * Gives claimed rows back: due now (the lease cleared) and, when the claim
 * counts attempts, that attempt not counted. Only rows still leased (timer in
 * the future) and still matching the claim's condition move, so a row a step
 * finished or moved on meanwhile is left alone.
 */
export function releaseClaimsSql(rows: DueRows): string {
  const identifiers = [rows.table, rows.dueColumn, rows.idColumn ?? '', rows.attemptsColumn ?? 'attempts'];
  if (!identifiers.every((identifier) => IDENTIFIER.test(identifier)))
    throw new Error(`not identifiers: ${identifiers.join(', ')}`);
  const attempts = rows.attemptsColumn ? `, ${rows.attemptsColumn} = greatest(${rows.attemptsColumn} - 1, 0)` : '';
  const condition = rows.where ? ` AND (${rows.where})` : '';
  return `UPDATE ${rows.table} SET ${rows.dueColumn} = now()${attempts}
     WHERE ${rows.idColumn} = ANY($1) AND ${rows.dueColumn} > now()${condition}`;
}

/** Gives the claimed rows `ids` back (releaseClaimsSql); answers how many moved. */
export async function releaseClaims(manager: EntityManager, rows: DueRows, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const [, moved] = (await manager.query(releaseClaimsSql(rows), [ids])) as [unknown, number];
  return moved ?? 0;
}

/** The measurement of `rows` in `dataSource`, for WorkerMetrics.watchDue. */
export function dueRowsProbe(dataSource: DataSource, rows: DueRows): () => Promise<DueRowsMeasurement> {
  const sql = dueRowsSql(rows);
  return async () => {
    const [row] = (await dataSource.query(sql, [DUE_ROWS_COUNTED_MAX])) as Array<{
      due_rows: number;
      oldest_due_age_ms: string;
    }>;
    return { dueRows: row?.due_rows ?? 0, oldestDueAgeMs: Number(row?.oldest_due_age_ms ?? 0) };
  };
}
