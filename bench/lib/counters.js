// Work per operation from counter snapshots: PostgreSQL's statistics views and CPU ticks.
// Snapshots are nested objects whose leaves are monotonically growing numbers; these pure
// functions take differences and divide them by the operations done (unit-tested).
//
// PostgreSQL's cumulative statistics reach the views when a backend flushes them: at most
// once a second while it works, and within PGSTAT_IDLE_INTERVAL (10 s) once it idles. A
// snapshot that must include finished work is therefore taken STATS_FLUSH_WAIT_MS after it.
'use strict';

const STATS_FLUSH_WAIT_MS = 11_000;

/** Counters of every database in `names`, read from any database (one query, one transaction). */
const DATABASE_SNAPSHOT_SQL = `
  SELECT datname, xact_commit, xact_rollback, tup_returned, tup_fetched, tup_inserted, tup_updated, tup_deleted
    FROM pg_stat_database WHERE datname = ANY($1::text[])`;

/** Counters of every table of the database the client is connected to. */
const TABLE_SNAPSHOT_SQL = `
  SELECT relname, seq_scan, seq_tup_read, coalesce(idx_scan, 0) AS idx_scan, coalesce(idx_tup_fetch, 0) AS idx_tup_fetch,
         n_tup_ins, n_tup_upd, n_tup_del
    FROM pg_stat_user_tables`;

const number = (value) => Number(value ?? 0);

/** A pg_stat_database row as named counters; rows read = tuples returned + fetched. */
function databaseCounters(row) {
  return {
    commits: number(row.xact_commit),
    rollbacks: number(row.xact_rollback),
    rowsRead: number(row.tup_returned) + number(row.tup_fetched),
    rowsReturned: number(row.tup_returned),
    rowsFetched: number(row.tup_fetched),
    rowsInserted: number(row.tup_inserted),
    rowsUpdated: number(row.tup_updated),
    rowsDeleted: number(row.tup_deleted),
  };
}

/** A pg_stat_user_tables row as named counters; rows read = sequentially read + fetched by index. */
function tableCounters(row) {
  return {
    rowsRead: number(row.seq_tup_read) + number(row.idx_tup_fetch),
    seqScans: number(row.seq_scan),
    seqRowsRead: number(row.seq_tup_read),
    indexScans: number(row.idx_scan),
    indexRowsFetched: number(row.idx_tup_fetch),
    rowsInserted: number(row.n_tup_ins),
    rowsUpdated: number(row.n_tup_upd),
    rowsDeleted: number(row.n_tup_del),
  };
}

const isObject = (value) => value !== null && typeof value === 'object';

/** after − before, leaf by leaf, over after's shape (a key new in after starts from 0; null stays null). */
function difference(after, before) {
  if (!isObject(after)) {
    if (after === null || after === undefined) return null;
    if (before === null) return null;
    return after - (before ?? 0);
  }
  return Object.fromEntries(
    Object.entries(after).map(([key, value]) => [key, difference(value, isObject(before) ? before[key] : undefined)]),
  );
}

/** Sum of the leaves of a counter tree, null leaves skipped. */
function total(tree) {
  if (!isObject(tree)) return tree ?? 0;
  return Object.values(tree).reduce((sum, value) => sum + total(value), 0);
}

/**
 * Per operation, net of the idle background: each leaf of `window` less the same leaf of
 * `idle` scaled from idleSeconds to windowSeconds (never below 0), divided by operations.
 * Pollers and timers run whether or not orders flow; this leaves what the orders cost.
 */
function perOperation(window, idle, { windowSeconds, idleSeconds, operations }) {
  if (!isObject(window)) {
    if (window === null || window === undefined) return null;
    const background = idle === null || idle === undefined || !idleSeconds ? 0 : (idle * windowSeconds) / idleSeconds;
    return Math.max(0, window - background) / operations;
  }
  return Object.fromEntries(
    Object.entries(window).map(([key, value]) => [
      key,
      perOperation(value, isObject(idle) ? idle[key] : undefined, { windowSeconds, idleSeconds, operations }),
    ]),
  );
}

/** Per second: each leaf divided by seconds. */
function perSecond(tree, seconds) {
  if (!isObject(tree)) return tree === null || tree === undefined ? null : tree / seconds;
  return Object.fromEntries(Object.entries(tree).map(([key, value]) => [key, perSecond(value, seconds)]));
}

module.exports = {
  STATS_FLUSH_WAIT_MS,
  DATABASE_SNAPSHOT_SQL,
  TABLE_SNAPSHOT_SQL,
  databaseCounters,
  tableCounters,
  difference,
  total,
  perOperation,
  perSecond,
};
