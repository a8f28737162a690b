/**
 * Retention: rows that only serve a window (published outbox rows, expired
 * quotes, deliveries past the events feed's window) are deleted once it has
 * passed, in small batches. One statement deletes at most `batchSize` rows in
 * the order of their time column, walking an index that matches the rule's
 * condition, so each transaction is short and locks few rows; rows another
 * replica is deleting are skipped (FOR UPDATE SKIP LOCKED), so every replica
 * can run the same sweeper. Rows that reference a pruned row (a delivery's
 * attempts) are deleted in the same statement, before it.
 *
 * Each rule is a BatchSweeper (its metrics' `worker` label is
 * `retention_<table>`: worker_claims_total counts rows pruned,
 * worker_due_rows and worker_lag_seconds the rows past their window not yet
 * pruned and how long past it the oldest is).
 *
 * A rule whose table is partitioned by week (`partitionedByWeek`) is removed a
 * week at a time instead: a second sweeper (`partitions_<table>`) keeps weeks
 * ready ahead and drops a week once it is wholly past the window, and the batch
 * sweeper only reaches, a week and a day later, the rows a drop left behind (a
 * week kept because it held a row still needed).
 */
import type { Logger } from '@platform/logger';
import type { DataSource } from 'typeorm';
import { BatchSweeper } from './batch-sweeper';
import { DUE_ROWS_COUNTED_MAX } from './due-rows';

/** Rows of one table that only serve a window, and how to recognise them. */
export interface RetentionRule {
  /** The table pruned. */
  table: string;
  /** Its key: a batch is deleted by key. */
  idColumn: string;
  /** When the row stopped being needed; it is pruned `windowMs` after. */
  timeColumn: string;
  /**
   * What else a row must satisfy to be pruned (`published_at IS NOT NULL`), written in code, never from
   * input: it is what keeps a row still needed (unpublished, open, unconsumed).
   */
  where?: string;
  windowMs: number;
  /** Tables whose rows reference this one (`delivery_attempts.delivery_id`): deleted with the rows they reference. */
  dependents?: ReadonlyArray<{ table: string; column: string }>;
  /** The table is partitioned by week on `timeColumn`: a week past the window is dropped whole (see WeeklyPartitioning). */
  partitionedByWeek?: WeeklyPartitioning;
}

/** How a table partitioned by week on its rule's time column is kept (docs/retention.md, "Partitions"). */
export interface WeeklyPartitioning {
  /**
   * Tables partitioned with the same weekly bounds on their own copy of the key (a delivery's
   * attempts on its `created_at`), whose week is created and dropped with the table's.
   */
  alongside: readonly string[];
  /** Weekly partitions kept ready beyond the current week: inserts find theirs while maintenance is down this long. */
  aheadCount: number;
  /**
   * Conditions on the table's rows, each an indexed probe, any one of which keeps a week from being
   * dropped (a row still needed: what `where` leaves out, stated so that an index answers it).
   */
  holds: readonly string[];
}

export interface RetentionOptions {
  /** How often each replica looks for rows past their window. */
  intervalMs: number;
  /** Rows one statement deletes at most. */
  batchSize: number;
}

/** Bounds of a retention batch: large enough to keep up, small enough that a delete stays short. */
export const RETENTION_BATCH_SIZE_MAX = 5_000;

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

function identifiers(rule: RetentionRule): void {
  const names = [
    rule.table,
    rule.idColumn,
    rule.timeColumn,
    ...(rule.dependents ?? []).flatMap((d) => [d.table, d.column]),
  ];
  const bad = names.find((name) => !IDENTIFIER.test(name));
  if (bad !== undefined) throw new Error(`not an identifier: ${bad}`);
  if (!Number.isSafeInteger(rule.windowMs) || rule.windowMs <= 0)
    throw new Error(`${rule.table}: windowMs must be positive`);
}

function candidates(rule: RetentionRule, limit: string): string {
  const condition = rule.where ? ` AND (${rule.where})` : '';
  return `SELECT ${rule.idColumn}, ${rule.timeColumn} FROM ${rule.table}
          WHERE ${rule.timeColumn} < $1${condition} ORDER BY ${rule.timeColumn} LIMIT ${limit}`;
}

/** One batch: deletes at most $2 rows whose time is before $1 (and their dependents); answers `pruned`. */
export function pruneSql(rule: RetentionRule): string {
  identifiers(rule);
  const dependents = (rule.dependents ?? []).map(
    (dependent, index) =>
      `dependent_${index} AS (DELETE FROM ${dependent.table} d USING doomed WHERE d.${dependent.column} = doomed.${rule.idColumn}),`,
  );
  return `WITH doomed AS (${candidates(rule, '$2')} FOR UPDATE SKIP LOCKED),
     ${dependents.join('\n     ')}
     gone AS (DELETE FROM ${rule.table} t USING doomed WHERE t.${rule.idColumn} = doomed.${rule.idColumn} RETURNING 1)
     SELECT count(*)::int AS pruned FROM gone`;
}

/** Rows past their window (before $1), counted up to $2, and how long past it the oldest is (ms). */
export function overdueSql(rule: RetentionRule): string {
  identifiers(rule);
  return `SELECT count(*)::int AS due_rows,
            COALESCE(floor(extract(epoch FROM $1::timestamptz - min(${rule.timeColumn})) * 1000), 0)::bigint AS oldest_due_age_ms
     FROM (${candidates(rule, '$2')}) overdue`;
}

/**
 * The instant before which a row of `rule` is deleted by batch: its window, or for a table
 * partitioned by week a week and a day later, so that batches only reach the rows of a week
 * kept past its window (held), never a week that is about to be dropped whole.
 */
export function retentionCutoff(rule: RetentionRule, nowMs: number): Date {
  return new Date(nowMs - rule.windowMs - (rule.partitionedByWeek ? BATCH_LAG_BEHIND_DROPS_MS : 0));
}

/** Deletes one batch of `rule`'s rows past their window; answers how many. */
export async function pruneBatch(
  dataSource: Pick<DataSource, 'query'>,
  rule: RetentionRule,
  batchSize: number,
  nowMs: number = Date.now(),
): Promise<number> {
  const [row] = (await dataSource.query(pruneSql(rule), [retentionCutoff(rule, nowMs), batchSize])) as Array<{
    pruned: number;
  }>;
  return row?.pruned ?? 0;
}

/** One BatchSweeper per rule, on the shared work loop; the caller starts and stops them. */
export function retentionSweepers(
  dataSource: DataSource,
  rules: readonly RetentionRule[],
  logger: Logger,
  options: RetentionOptions,
): BatchSweeper[] {
  if (!Number.isSafeInteger(options.batchSize) || options.batchSize < 1 || options.batchSize > RETENTION_BATCH_SIZE_MAX)
    throw new Error(`retention batchSize must be 1..${RETENTION_BATCH_SIZE_MAX}`);
  return rules.flatMap((rule) => {
    const partitions = rule.partitionedByWeek
      ? [partitionSweeper(dataSource, partitionRuleOf(rule, rule.partitionedByWeek), logger, options)]
      : [];
    return [...partitions, batchSweeper(dataSource, rule, logger, options)];
  });
}

function batchSweeper(
  dataSource: DataSource,
  rule: RetentionRule,
  logger: Logger,
  options: RetentionOptions,
): BatchSweeper {
  const sql = overdueSql(rule);
  const measureDue = async () => {
    const [row] = (await dataSource.query(sql, [retentionCutoff(rule, Date.now()), DUE_ROWS_COUNTED_MAX])) as Array<{
      due_rows: number;
      oldest_due_age_ms: string;
    }>;
    return { dueRows: row?.due_rows ?? 0, oldestDueAgeMs: Number(row?.oldest_due_age_ms ?? 0) };
  };
  return new BatchSweeper(
    `retention of ${rule.table}`,
    (batchSize) => pruneBatch(dataSource, rule, batchSize),
    logger.child({ context: 'RetentionSweeper', table: rule.table }),
    { intervalMs: options.intervalMs, batchSize: options.batchSize },
    { worker: `retention_${rule.table}`, measureDue },
  );
}

/** The sweepers of `rules`, started; stop() stops them all (each waits for its batch in flight). */
export function startRetention(
  dataSource: DataSource,
  rules: readonly RetentionRule[],
  logger: Logger,
  options: RetentionOptions,
): { sweepers: BatchSweeper[]; stop(): Promise<void> } {
  const sweepers = retentionSweepers(dataSource, rules, logger, options);
  for (const sweeper of sweepers) sweeper.start();
  return {
    sweepers,
    stop: async () => {
      await Promise.all(sweepers.map((sweeper) => sweeper.stop()));
    },
  };
}

/**
 * Tables partitioned by week on their time column (docs/retention.md, "Partitions"): the
 * maintenance step keeps `aheadCount` weekly partitions ready beyond the current one, and
 * drops a week once all of it is past its window, the first table's partition and the
 * others' of the same week together (a delivery's attempts are filed under its week).
 * A week whose first table still holds a row matching one of `holds` (an unfinished
 * delivery) is kept whatever its age: the rows that finish are pruned by a batch rule,
 * and the week is dropped once none holds it.
 */
export interface PartitionRule {
  /** Partitioned parents, each with weekly partitions named `<table>_YYYYMMDD` (the Monday, UTC) and the same bounds. */
  tables: readonly string[];
  /** Weekly partitions kept ahead of the current week: inserts find their partition while maintenance is down this long. */
  aheadCount: number;
  /** A week is dropped once its end is this far in the past. */
  windowMs: number;
  /** Conditions on the first table's rows, each one an indexed probe, that keep a week from being dropped. */
  holds: readonly string[];
}

export const WEEK_MS = 7 * 24 * 60 * 60_000;
/** How much later than the window batches reach into a table partitioned by week: a week, and a day of margin. */
export const BATCH_LAG_BEHIND_DROPS_MS = WEEK_MS + 24 * 60 * 60_000;

/** The partition maintenance of a rule partitioned by week: its table first, then those partitioned alongside. */
export function partitionRuleOf(rule: RetentionRule, partitioning: WeeklyPartitioning): PartitionRule {
  return {
    tables: [rule.table, ...partitioning.alongside],
    aheadCount: partitioning.aheadCount,
    windowMs: rule.windowMs,
    holds: partitioning.holds,
  };
}
/** Weeks dropped per maintenance pass at most; the next pass follows at the next interval. */
const WEEKS_DROPPED_PER_PASS_MAX = 8;
/** How long a partition's creation or drop waits for its lock before the pass gives up (retried next pass). */
const PARTITION_LOCK_TIMEOUT = '2s';
const WEEK_SUFFIX = /_(\d{4})(\d{2})(\d{2})$/;

/** The Monday 00:00 UTC starting the week of `instantMs`. */
export function weekStartMs(instantMs: number): number {
  const day = new Date(instantMs);
  const midnight = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate());
  return midnight - ((day.getUTCDay() + 6) % 7) * 24 * 60 * 60_000;
}

/** `<table>_YYYYMMDD` of the week starting at `startMs`. */
export function weekPartitionName(table: string, startMs: number): string {
  return `${table}_${new Date(startMs).toISOString().slice(0, 10).replaceAll('-', '')}`;
}

function partitionIdentifiers(rule: PartitionRule): void {
  const bad = rule.tables.find((name) => !IDENTIFIER.test(name));
  if (bad !== undefined || rule.tables.length === 0) throw new Error(`not an identifier: ${bad ?? '(no table)'}`);
  if (!Number.isSafeInteger(rule.aheadCount) || rule.aheadCount < 1) throw new Error('aheadCount must be at least 1');
  if (!Number.isSafeInteger(rule.windowMs) || rule.windowMs <= 0) throw new Error('windowMs must be positive');
}

/** The weekly partitions of `table` (not its default), by their Monday, oldest first. */
export async function weeklyPartitions(dataSource: Pick<DataSource, 'query'>, table: string): Promise<number[]> {
  const rows = (await dataSource.query(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = $1::regclass`,
    [table],
  )) as Array<{ name: string }>;
  return mondaysOf(rows.filter((row) => row.name.startsWith(`${table}_`)));
}

function mondaysOf(rows: ReadonlyArray<{ name: string }>): number[] {
  return rows
    .map((row) => WEEK_SUFFIX.exec(row.name))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])))
    .sort((a, b) => a - b);
}

async function inTransaction(
  dataSource: DataSource,
  work: (query: (sql: string) => Promise<unknown>) => Promise<boolean>,
) {
  const runner = dataSource.createQueryRunner();
  try {
    await runner.startTransaction();
    await runner.query(`SET LOCAL lock_timeout = '${PARTITION_LOCK_TIMEOUT}'`);
    const commit = await work((sql) => runner.query(sql));
    if (commit) await runner.commitTransaction();
    else await runner.rollbackTransaction();
    return commit;
  } catch (error) {
    if (runner.isTransactionActive) await runner.rollbackTransaction();
    throw error;
  } finally {
    await runner.release();
  }
}

/**
 * Creates the week starting at `startMs` in every table of `rule`, in one transaction: each as a
 * plain table shaped like its parent, then attached. Attaching takes SHARE UPDATE EXCLUSIVE on the
 * parent, which inserts, claims and reads do not wait for (CREATE TABLE … PARTITION OF would take
 * ACCESS EXCLUSIVE and stop them all while it waits for its lock). The parent's indexes are built
 * on the empty table as it is attached. A default partition is locked for the attach and scanned
 * for rows of the new week unless its constraints exclude them: weeks are only created after the
 * newest, beyond the default's CHECK, so the scan is skipped. A week another replica created
 * meanwhile is left as it is.
 */
export async function createWeek(dataSource: DataSource, rule: PartitionRule, startMs: number): Promise<void> {
  partitionIdentifiers(rule);
  const from = new Date(startMs).toISOString();
  const to = new Date(startMs + WEEK_MS).toISOString();
  await inTransaction(dataSource, async (query) => {
    for (const table of rule.tables) {
      const week = weekPartitionName(table, startMs);
      await query(`CREATE TABLE IF NOT EXISTS ${week} (LIKE ${table} INCLUDING ALL EXCLUDING INDEXES)`);
      await query(
        `DO $attach$ BEGIN
           IF NOT (SELECT relispartition FROM pg_class WHERE oid = '${week}'::regclass) THEN
             ALTER TABLE ${table} ATTACH PARTITION ${week} FOR VALUES FROM ('${from}') TO ('${to}');
           END IF;
         END $attach$`,
      );
    }
    return true;
  });
}

/**
 * Drops the week starting at `startMs` from every table of `rule`, unless a row of the first
 * table's partition matches one of `rule.holds`. A held week is recognised without any lock (it
 * stays held until its rows finish, which a later pass sees). Answers whether it dropped.
 *
 * Without a default partition (the tables' normal state: docs/retention.md, "Partitions") the
 * week is detached CONCURRENTLY, which never takes a lock on the parent that inserts, claims or
 * reads wait for; otherwise under ACCESS EXCLUSIVE on the parents (PostgreSQL refuses a
 * concurrent detach beside a default partition).
 */
export async function dropWeek(dataSource: DataSource, rule: PartitionRule, startMs: number): Promise<boolean> {
  partitionIdentifiers(rule);
  const first = weekPartitionName(rule.tables[0]!, startMs);
  const held = await weekHeld(dataSource, first, rule.holds);
  if (await hasDefaultPartition(dataSource, rule.tables)) return !held && dropWeekLocked(dataSource, rule, startMs);
  if (!held) return dropWeekDetached(dataSource, rule, startMs);
  // A week a stopped pass detached may have been held meanwhile: it goes back where its rows are read.
  await onOwnSession(dataSource, first, (query) => attachBack(query, rule.tables[0]!, startMs));
  return false;
}

/**
 * The week dropped in one transaction: the parents locked (ACCESS EXCLUSIVE, which the drop takes
 * anyway: the parents first, in the order writers take them, so a writer cannot deadlock with the
 * drop) and the week looked at again, so no row becomes unfinished between the look and the drop.
 */
async function dropWeekLocked(dataSource: DataSource, rule: PartitionRule, startMs: number): Promise<boolean> {
  const first = weekPartitionName(rule.tables[0]!, startMs);
  return inTransaction(dataSource, async (query) => {
    await query(`LOCK TABLE ${rule.tables.join(', ')} IN ACCESS EXCLUSIVE MODE`);
    if (await weekHeld({ query }, first, rule.holds)) return false;
    for (const table of [...rule.tables].reverse()) await query(`DROP TABLE ${weekPartitionName(table, startMs)}`);
    return true;
  });
}

/**
 * The week detached from each parent with DETACH PARTITION … CONCURRENTLY, then dropped, each
 * statement on its own (a concurrent detach cannot run inside a transaction). Its first step
 * takes SHARE UPDATE EXCLUSIVE on the parent (inserts, claims and reads go on); its second waits
 * for the transactions that may still use the week and then locks only the detached table. The
 * first table goes first and is looked at again once detached, when no statement can change it
 * any more: a row that became unfinished meanwhile (an operator's replay) gets its week attached
 * back (no scan: the detach left a CHECK of the bounds) and the week is kept; otherwise the
 * tables alongside are detached and all dropped. Each step waits for its locks `lock_timeout` at
 * most; a pass stopped part-way is resumed by the next (a detach left pending is finalised, a
 * week detached but not dropped is found by `detachedWeeks`).
 */
async function dropWeekDetached(dataSource: DataSource, rule: PartitionRule, startMs: number): Promise<boolean> {
  const [firstTable, ...alongside] = rule.tables as [string, ...string[]];
  const first = weekPartitionName(firstTable, startMs);
  const dropped = await onOwnSession(dataSource, first, async (query) => {
    await detachWeek(query, firstTable, startMs);
    if (await weekHeld({ query }, first, rule.holds)) {
      await attachBack(query, firstTable, startMs);
      return false;
    }
    for (const table of alongside) await detachWeek(query, table, startMs);
    for (const table of [...rule.tables].reverse())
      await query(`DROP TABLE IF EXISTS ${weekPartitionName(table, startMs)}`);
    return true;
  });
  return dropped === true;
}

/**
 * Attaches `table`'s week back if it is detached (SHARE UPDATE EXCLUSIVE on the parent; the CHECK a
 * concurrent detach leaves spares the scan). A detach left pending is finalised first.
 */
async function attachBack(query: (sql: string) => Promise<unknown>, table: string, startMs: number): Promise<void> {
  await detachWeek(query, table, startMs, 'pending only');
  const week = weekPartitionName(table, startMs);
  const [state] = (await query(
    `SELECT relispartition AS attached FROM pg_class WHERE oid = to_regclass('${week}')`,
  )) as Array<{ attached: boolean }>;
  if (state === undefined || state.attached) return;
  const from = new Date(startMs).toISOString();
  const to = new Date(startMs + WEEK_MS).toISOString();
  await query(`ALTER TABLE ${table} ATTACH PARTITION ${week} FOR VALUES FROM ('${from}') TO ('${to}')`);
}

/** Detaches `table`'s week concurrently, or finalises a detach a stopped pass left pending; nothing if already detached. */
async function detachWeek(
  query: (sql: string) => Promise<unknown>,
  table: string,
  startMs: number,
  which: 'attached or pending' | 'pending only' = 'attached or pending',
): Promise<void> {
  const week = weekPartitionName(table, startMs);
  const [state] = (await query(
    `SELECT c.relispartition AS attached, coalesce(i.inhdetachpending, false) AS pending
       FROM pg_class c LEFT JOIN pg_inherits i ON i.inhrelid = c.oid
      WHERE c.oid = to_regclass('${week}')`,
  )) as Array<{ attached: boolean; pending: boolean }>;
  if (!state?.attached || (which === 'pending only' && !state.pending)) return;
  await query(`ALTER TABLE ${table} DETACH PARTITION ${week} ${state.pending ? 'FINALIZE' : 'CONCURRENTLY'}`);
}

/**
 * Work on one connection outside any transaction, with the partition lock timeout, reset before
 * it goes back to the pool, under a session advisory lock named after `week`: replicas running the
 * same pass take turns instead of racing one detach (`undefined`: another replica has it now).
 */
async function onOwnSession<T>(
  dataSource: DataSource,
  week: string,
  work: (query: (sql: string) => Promise<unknown>) => Promise<T>,
): Promise<T | undefined> {
  const runner = dataSource.createQueryRunner();
  const key = `hashtext('partition ${week}')`;
  let locked = false;
  try {
    await runner.query(`SET lock_timeout = '${PARTITION_LOCK_TIMEOUT}'`);
    const [row] = (await runner.query(`SELECT pg_try_advisory_lock(${key}) AS locked`)) as Array<{ locked: boolean }>;
    locked = row?.locked === true;
    return locked ? await work((sql) => runner.query(sql)) : undefined;
  } finally {
    if (locked) await runner.query(`SELECT pg_advisory_unlock(${key})`).catch(() => undefined);
    await runner.query('RESET lock_timeout').catch(() => undefined);
    await runner.release();
  }
}

/** Whether one of `tables` has a DEFAULT partition. */
async function hasDefaultPartition(dataSource: Pick<DataSource, 'query'>, tables: readonly string[]): Promise<boolean> {
  const [row] = (await dataSource.query(
    `SELECT EXISTS (SELECT 1 FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                     WHERE i.inhparent = ANY($1::regclass[]) AND pg_get_expr(c.relpartbound, c.oid) = 'DEFAULT') AS found`,
    [tables],
  )) as Array<{ found: boolean }>;
  return row?.found === true;
}

/**
 * Weeks of `table` detached but not dropped (a drop stopped between its steps), by their Monday:
 * tables named `<table>_YYYYMMDD` that are no partition.
 */
export async function detachedWeeks(dataSource: Pick<DataSource, 'query'>, table: string): Promise<number[]> {
  const rows = (await dataSource.query(
    `SELECT relname AS name FROM pg_class
      WHERE relkind = 'r' AND NOT relispartition AND relnamespace = current_schema()::regnamespace
        AND relname ~ ('^' || $1 || '_[0-9]{8}$')`,
    [table],
  )) as Array<{ name: string }>;
  return mondaysOf(rows);
}

/** Whether a row of `partition` matches one of `holds` (each an indexed probe). */
async function weekHeld(
  runner: { query(sql: string): Promise<unknown> },
  partition: string,
  holds: readonly string[],
): Promise<boolean> {
  for (const hold of holds) {
    const [row] = (await runner.query(`SELECT EXISTS (SELECT 1 FROM ${partition} WHERE ${hold}) AS held`)) as Array<{
      held: boolean;
    }>;
    if (row?.held) return true;
  }
  return false;
}

/**
 * One maintenance pass: the weeks up to `aheadCount` past the current one created (after the
 * newest there is, never behind it: a week behind would have to be checked against the
 * default partition), then the weeks wholly past the window dropped unless held. Answers
 * how many weeks it created or dropped.
 */
export async function maintainPartitions(
  dataSource: DataSource,
  rule: PartitionRule,
  logger: Logger,
  nowMs: number = Date.now(),
): Promise<number> {
  const weeks = await weeklyPartitions(dataSource, rule.tables[0]!);
  const lastWanted = weekStartMs(nowMs) + rule.aheadCount * WEEK_MS;
  let changed = 0;
  for (let start = (weeks.at(-1) ?? weekStartMs(nowMs) - WEEK_MS) + WEEK_MS; start <= lastWanted; start += WEEK_MS) {
    await createWeek(dataSource, rule, start);
    changed += 1;
  }
  // With the weeks a stopped pass detached but did not drop, which are past the window too.
  const leftover = await detachedWeeks(dataSource, rule.tables[0]!);
  const expired = [...new Set([...weeks, ...leftover])]
    .sort((a, b) => a - b)
    .filter((start) => start + WEEK_MS <= nowMs - rule.windowMs)
    .slice(0, WEEKS_DROPPED_PER_PASS_MAX);
  for (const start of expired) {
    if (await dropWeek(dataSource, rule, start)) changed += 1;
    else
      logger.info(
        'partition past its window kept: it holds unfinished rows (pruned by batch), or another replica drops it',
        {
          partition: weekPartitionName(rule.tables[0]!, start),
        },
      );
  }
  return changed;
}

/** Weeks past their window still there (held, or not yet dropped), and how long past it the oldest is. */
async function expiredWeeks(
  dataSource: DataSource,
  rule: PartitionRule,
): Promise<{ dueRows: number; oldestDueAgeMs: number }> {
  const nowMs = Date.now();
  const expired = (await weeklyPartitions(dataSource, rule.tables[0]!)).filter(
    (start) => start + WEEK_MS <= nowMs - rule.windowMs,
  );
  return {
    dueRows: expired.length,
    oldestDueAgeMs: expired.length === 0 ? 0 : nowMs - rule.windowMs - (expired[0]! + WEEK_MS),
  };
}

/** The partition maintenance of `rule` as a BatchSweeper (worker `partitions_<first table>`), one pass per interval. */
export function partitionSweeper(
  dataSource: DataSource,
  rule: PartitionRule,
  logger: Logger,
  options: RetentionOptions,
): BatchSweeper {
  partitionIdentifiers(rule);
  const child = logger.child({ context: 'PartitionMaintenance', table: rule.tables[0] });
  return new BatchSweeper(
    `partitions of ${rule.tables.join(', ')}`,
    // A pass does what is due and answers less than the batch size, so the sweeper waits for the next interval.
    async () => Math.min(await maintainPartitions(dataSource, rule, child), options.batchSize - 1),
    child,
    { intervalMs: options.intervalMs, batchSize: options.batchSize },
    { worker: `partitions_${rule.tables[0]}`, measureDue: () => expiredWeeks(dataSource, rule) },
  );
}
