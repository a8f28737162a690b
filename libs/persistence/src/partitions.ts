/**
 * Tables range-partitioned by week on a time column (docs/retention.md, "Partitions"): weeks
 * named `<table>_YYYYMMDD` after their Monday (00:00 UTC), created ahead by the maintenance pass
 * or, when one is missing, on demand by the writer whose row needs it; dropped once wholly past
 * their window unless a row in them is still needed; the range below the first week (the rows
 * from before the partitioning) dropped the same way once past it. Creating attaches a plain
 * table and dropping detaches CONCURRENTLY, so neither takes a lock on the parent that inserts,
 * claims or reads wait for.
 */
import type { Logger } from '@platform/logger';
import type { DataSource } from 'typeorm';
import { sqlState } from './data-source';

/**
 * Tables partitioned by week on their time column: the maintenance step keeps `aheadCount`
 * weekly partitions ready beyond the current one, and drops a week once all of it is past its
 * window, the first table's partition and the others' of the same week together (a delivery's
 * attempts are filed under its week). A week whose first table still holds a row matching one
 * of `holds` (an unfinished delivery) is kept whatever its age: the rows that finish are pruned
 * by a batch rule, and the week is dropped once none holds it.
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
  /**
   * The range below the first week, one partition per table of `tables` in the same order (the
   * tables from before the partitioning, attached `FROM (MINVALUE) TO (<first week>)`): dropped as a
   * week is, once its upper bound is past the window and nothing in it holds it.
   */
  below?: readonly string[];
}

export const WEEK_MS = 7 * 24 * 60 * 60_000;
/** Weeks dropped per maintenance pass at most; the next pass follows at the next interval. */
const WEEKS_DROPPED_PER_PASS_MAX = 8;
/**
 * Weeks one writer creates on demand at most: a row is filed in a week from the late-event floor
 * (36 days back) to next week, eight at most. Asking for more is a bug (a date that reached the
 * key unbounded), refused rather than creating partitions without end.
 */
export const WEEKS_CREATED_ON_DEMAND_MAX = 8;
/** How long a partition's creation or drop waits for its lock before giving up (a pass retries at the next). */
const PARTITION_LOCK_TIMEOUT = '2s';
/**
 * How long a creation waits for its turn on the week (another replica creating it, on demand or in
 * a pass): that one's transaction is catalog work only, and once it ends the week is there.
 */
const WEEK_TURN_WAIT = '10s';
const WEEK_SUFFIX = /_(\d{4})(\d{2})(\d{2})$/;
export const SQL_IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

type Query = (sql: string) => Promise<unknown>;

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

/** Whether `error` is PostgreSQL refusing a row that no partition takes (`no partition of relation … found for row`). */
export function isNoPartitionForRow(error: unknown): boolean {
  const message = (error as { message?: unknown })?.message;
  return sqlState(error) === '23514' && typeof message === 'string' && message.startsWith('no partition of relation');
}

function tableIdentifiers(tables: readonly string[]): void {
  const bad = tables.find((name) => !SQL_IDENTIFIER.test(name));
  if (bad !== undefined || tables.length === 0) throw new Error(`not an identifier: ${bad ?? '(no table)'}`);
}

/** Refuses a rule whose names are not plain identifiers or whose bounds are not positive (at start). */
export function checkPartitionRule(rule: PartitionRule): void {
  tableIdentifiers([...rule.tables, ...(rule.below ?? [])]);
  if (rule.below !== undefined && rule.below.length !== rule.tables.length)
    throw new Error('below must name one range per table');
  if (!Number.isSafeInteger(rule.aheadCount) || rule.aheadCount < 1) throw new Error('aheadCount must be at least 1');
  if (!Number.isSafeInteger(rule.windowMs) || rule.windowMs <= 0) throw new Error('windowMs must be positive');
}

/** The weekly partitions of `table` (not its default, nor the range below), by their Monday, oldest first. */
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

/** Where the range below the first week of `table` ends (its partition bounded `FROM (MINVALUE)`); undefined without one. */
export async function rangeBelowEndMs(
  dataSource: Pick<DataSource, 'query'>,
  table: string,
): Promise<number | undefined> {
  const rows = (await dataSource.query(
    `SELECT (regexp_match(pg_get_expr(c.relpartbound, c.oid), '^FOR VALUES FROM \\(MINVALUE\\) TO \\(''([^'']+)''\\)$'))[1]::timestamptz AS upper
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = $1::regclass`,
    [table],
  )) as Array<{ upper: Date | null }>;
  const ends = rows.flatMap((row) => (row.upper === null ? [] : [row.upper.getTime()]));
  return ends.length === 0 ? undefined : Math.max(...ends);
}

async function inTransaction(dataSource: DataSource, work: (query: Query) => Promise<boolean>) {
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

/** The advisory lock a week's creation and drop both take, so replicas take turns on one week rather than race. */
const weekLockKey = (firstPartition: string) => `hashtext('partition ${firstPartition}')`;

/**
 * Creates the week starting at `startMs` in every table of `rule`, in one transaction: each as a
 * plain table shaped like its parent, then attached. Attaching takes SHARE UPDATE EXCLUSIVE on the
 * parent, which inserts, claims and reads do not wait for (CREATE TABLE … PARTITION OF would take
 * ACCESS EXCLUSIVE and stop them all while it waits for its lock). The parent's indexes are built
 * on the empty table as it is attached. A default partition is locked for the attach and scanned
 * for rows of the new week unless its constraints exclude them. The transaction first takes the
 * week's advisory lock: two replicas creating it at once (on demand, or a pass) take turns, and
 * the second finds it there (`CREATE TABLE IF NOT EXISTS` alone races in the catalog); a week
 * already there, in either table, is left as it is.
 */
export async function createWeek(
  dataSource: DataSource,
  rule: Pick<PartitionRule, 'tables'>,
  startMs: number,
): Promise<void> {
  tableIdentifiers(rule.tables);
  const from = new Date(startMs).toISOString();
  const to = new Date(startMs + WEEK_MS).toISOString();
  await inTransaction(dataSource, async (query) => {
    await query(`SET LOCAL lock_timeout = '${WEEK_TURN_WAIT}'`);
    await query(`SELECT pg_advisory_xact_lock(${weekLockKey(weekPartitionName(rule.tables[0]!, startMs))})`);
    await query(`SET LOCAL lock_timeout = '${PARTITION_LOCK_TIMEOUT}'`);
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
 * Creates, now, the weeks among `startsMs` (Mondays) that a table of `rule` is missing: what a
 * writer does when its insert found no partition for a row (maintenance stopped longer than the
 * weeks ahead, a clock jump), before trying the insert once more. A week the range below the first
 * week covers is not missing. At most WEEKS_CREATED_ON_DEMAND_MAX weeks; each as `createWeek`
 * (same names, bounds and indexes as the maintenance pass's; SHARE UPDATE EXCLUSIVE on the parents,
 * which inserts do not wait for). Answers the weeks it created.
 */
export async function createMissingWeeks(
  dataSource: DataSource,
  rule: Pick<PartitionRule, 'tables'>,
  startsMs: readonly number[],
): Promise<number[]> {
  tableIdentifiers(rule.tables);
  const wanted = [...new Set(startsMs)].sort((a, b) => a - b);
  if (wanted.length > WEEKS_CREATED_ON_DEMAND_MAX)
    throw new Error(`${wanted.length} weeks asked for at once: at most ${WEEKS_CREATED_ON_DEMAND_MAX}`);
  const notMonday = wanted.find((start) => !Number.isSafeInteger(start) || weekStartMs(start) !== start);
  if (notMonday !== undefined) throw new Error(`not the start of a week: ${notMonday}`);
  const covered = await Promise.all(
    rule.tables.map(async (table) => ({
      weeks: new Set(await weeklyPartitions(dataSource, table)),
      belowEndMs: await rangeBelowEndMs(dataSource, table),
    })),
  );
  const missing = wanted.filter((start) =>
    covered.some(({ weeks, belowEndMs }) => !weeks.has(start) && !(belowEndMs !== undefined && start < belowEndMs)),
  );
  for (const start of missing) await createWeek(dataSource, rule, start);
  return missing;
}

/**
 * What is dropped together: one partition per table of the rule (in its order), the first one
 * probed for rows that hold it, and the bound each is attached back with should it be held.
 */
interface Slice {
  partitions: readonly string[];
  bound(query: Query, parent: string): Promise<string>;
}

function weekSlice(rule: PartitionRule, startMs: number): Slice {
  const bound = `FROM ('${new Date(startMs).toISOString()}') TO ('${new Date(startMs + WEEK_MS).toISOString()}')`;
  return { partitions: rule.tables.map((table) => weekPartitionName(table, startMs)), bound: async () => bound };
}

/**
 * The range below the first week. Attached back (held), it ends where the weeks now begin: that
 * is its old bound, or later if the first weeks were dropped meanwhile (the range then reaches over
 * their empty span, which no row is filed in any more).
 */
function rangeBelowSlice(below: readonly string[]): Slice {
  return {
    partitions: below,
    bound: async (query, parent) => {
      const rows = (await query(
        `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
          WHERE i.inhparent = '${parent}'::regclass`,
      )) as Array<{ name: string }>;
      const first = mondaysOf(rows.filter((row) => row.name.startsWith(`${parent}_`)))[0];
      if (first === undefined) throw new Error(`${parent} has no week to end the range below at`);
      return `FROM (MINVALUE) TO ('${new Date(first).toISOString()}')`;
    },
  };
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
  checkPartitionRule(rule);
  return dropSlice(dataSource, rule, weekSlice(rule, startMs));
}

async function dropSlice(dataSource: DataSource, rule: PartitionRule, slice: Slice): Promise<boolean> {
  const held = await sliceHeld(dataSource, slice.partitions[0]!, rule.holds);
  if (await hasDefaultPartition(dataSource, rule.tables)) return !held && dropLocked(dataSource, rule, slice);
  if (!held) return dropDetached(dataSource, rule, slice);
  // A slice a stopped pass detached may have been held meanwhile: it goes back where its rows are read.
  await onOwnSession(dataSource, slice.partitions[0]!, (query) => attachBack(query, rule, slice));
  return false;
}

/**
 * The slice dropped in one transaction: the parents locked (ACCESS EXCLUSIVE, which the drop takes
 * anyway: the parents first, in the order writers take them, so a writer cannot deadlock with the
 * drop) and the first partition looked at again, so no row becomes unfinished between the look and the drop.
 */
async function dropLocked(dataSource: DataSource, rule: PartitionRule, slice: Slice): Promise<boolean> {
  return inTransaction(dataSource, async (query) => {
    await query(`LOCK TABLE ${rule.tables.join(', ')} IN ACCESS EXCLUSIVE MODE`);
    if (await sliceHeld({ query }, slice.partitions[0]!, rule.holds)) return false;
    for (const partition of [...slice.partitions].reverse()) await query(`DROP TABLE ${partition}`);
    return true;
  });
}

/**
 * The slice detached from each parent with DETACH PARTITION … CONCURRENTLY, then dropped, each
 * statement on its own (a concurrent detach cannot run inside a transaction). Its first step
 * takes SHARE UPDATE EXCLUSIVE on the parent (inserts, claims and reads go on); its second waits
 * for the transactions that may still use the partition and then locks only the detached table. The
 * first table goes first and is looked at again once detached, when no statement can change it
 * any more: a row that became unfinished meanwhile (an operator's replay) gets its slice attached
 * back (no scan: the detach left a CHECK of the bounds) and kept; otherwise the tables alongside
 * are detached and all dropped, the last table's first (a foreign key between them goes with the
 * referencing table). Each step waits for its locks `lock_timeout` at most; a pass stopped
 * part-way is resumed by the next (a detach left pending is finalised, a week detached but not
 * dropped is found by `detachedWeeks`, the range below by its name).
 */
async function dropDetached(dataSource: DataSource, rule: PartitionRule, slice: Slice): Promise<boolean> {
  const [first, ...alongside] = slice.partitions as [string, ...string[]];
  const dropped = await onOwnSession(dataSource, first, async (query) => {
    await detach(query, rule.tables[0]!, first);
    if (await sliceHeld({ query }, first, rule.holds)) {
      await attachBack(query, rule, slice);
      return false;
    }
    for (const [index, partition] of alongside.entries()) await detach(query, rule.tables[index + 1]!, partition);
    for (const partition of [...slice.partitions].reverse()) await query(`DROP TABLE IF EXISTS ${partition}`);
    return true;
  });
  return dropped === true;
}

/**
 * Attaches each partition of `slice` back where it is detached (SHARE UPDATE EXCLUSIVE on the
 * parent; the CHECK a concurrent detach leaves spares a week the scan). A detach left pending is
 * finalised first.
 */
async function attachBack(query: Query, rule: PartitionRule, slice: Slice): Promise<void> {
  for (const [index, partition] of slice.partitions.entries()) {
    const parent = rule.tables[index]!;
    await detach(query, parent, partition, 'pending only');
    const [state] = (await query(
      `SELECT relispartition AS attached FROM pg_class WHERE oid = to_regclass('${partition}')`,
    )) as Array<{ attached: boolean }>;
    if (state === undefined || state.attached) continue;
    await query(`ALTER TABLE ${parent} ATTACH PARTITION ${partition} FOR VALUES ${await slice.bound(query, parent)}`);
  }
}

/** Detaches `partition` from `parent` concurrently, or finalises a detach a stopped pass left pending; nothing if already detached. */
async function detach(
  query: Query,
  parent: string,
  partition: string,
  which: 'attached or pending' | 'pending only' = 'attached or pending',
): Promise<void> {
  const [state] = (await query(
    `SELECT c.relispartition AS attached, coalesce(i.inhdetachpending, false) AS pending
       FROM pg_class c LEFT JOIN pg_inherits i ON i.inhrelid = c.oid
      WHERE c.oid = to_regclass('${partition}')`,
  )) as Array<{ attached: boolean; pending: boolean }>;
  if (!state?.attached || (which === 'pending only' && !state.pending)) return;
  await query(`ALTER TABLE ${parent} DETACH PARTITION ${partition} ${state.pending ? 'FINALIZE' : 'CONCURRENTLY'}`);
}

/**
 * Work on one connection outside any transaction, with the partition lock timeout, reset before
 * it goes back to the pool, under a session advisory lock named after `partition`: replicas running
 * the same pass take turns instead of racing one detach (`undefined`: another replica has it now).
 */
async function onOwnSession<T>(
  dataSource: DataSource,
  partition: string,
  work: (query: Query) => Promise<T>,
): Promise<T | undefined> {
  const runner = dataSource.createQueryRunner();
  const key = weekLockKey(partition);
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
async function sliceHeld(
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
 * The range below the first week as it stands: gone (dropped, or never there), attached with its
 * end, or detached and not dropped (a drop stopped between its steps: its end no longer known).
 */
async function rangeBelow(
  dataSource: Pick<DataSource, 'query'>,
  rule: PartitionRule,
): Promise<{ attached: true; endMs: number } | { attached: false } | undefined> {
  const [first] = rule.below ?? [];
  if (first === undefined) return undefined;
  const [row] = (await dataSource.query(`SELECT relispartition AS attached FROM pg_class WHERE oid = to_regclass($1)`, [
    first,
  ])) as Array<{ attached: boolean }>;
  if (row === undefined) return undefined;
  if (!row.attached) return { attached: false };
  const endMs = await rangeBelowEndMs(dataSource, rule.tables[0]!);
  // Attached otherwise (as the DEFAULT partition, before the ranges were bounded): not dropped here.
  return endMs === undefined ? undefined : { attached: true, endMs };
}

/** Whether the range below the first week is there and wholly past the window (or left detached by a stopped drop). */
function rangeBelowExpired(range: Awaited<ReturnType<typeof rangeBelow>>, rule: PartitionRule, nowMs: number) {
  return range !== undefined && (!range.attached || range.endMs <= nowMs - rule.windowMs);
}

/**
 * One maintenance pass: the weeks up to `aheadCount` past the current one created (after the
 * newest there is: a week missing behind it is created by the writer that needs it), then the
 * weeks wholly past the window dropped unless held, and the range below the first week once it
 * is past the window too. Answers how many weeks it created or dropped.
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
  const kept = (partition: string) =>
    logger.info(
      'partition past its window kept: it holds unfinished rows (pruned by batch), or another replica drops it',
      {
        partition,
      },
    );
  for (const start of expired) {
    if (await dropWeek(dataSource, rule, start)) changed += 1;
    else kept(weekPartitionName(rule.tables[0]!, start));
  }
  if (rule.below !== undefined && rangeBelowExpired(await rangeBelow(dataSource, rule), rule, nowMs)) {
    if (await dropSlice(dataSource, rule, rangeBelowSlice(rule.below))) {
      changed += 1;
      logger.info('range below the first week dropped: past its window, nothing in it unfinished', {
        partitions: rule.below,
      });
    } else kept(rule.below[0]!);
  }
  return changed;
}

/**
 * Partitions past their window still there (held, or not yet dropped: weeks, and the range below
 * the first week), and how long past it the oldest is.
 */
export async function expiredPartitions(
  dataSource: DataSource,
  rule: PartitionRule,
  nowMs: number = Date.now(),
): Promise<{ dueRows: number; oldestDueAgeMs: number }> {
  const ends = (await weeklyPartitions(dataSource, rule.tables[0]!))
    .map((start) => start + WEEK_MS)
    .filter((end) => end <= nowMs - rule.windowMs);
  const range = await rangeBelow(dataSource, rule);
  // A range left detached by a stopped drop counts as just past its window.
  if (rangeBelowExpired(range, rule, nowMs)) ends.push(range?.attached ? range.endMs : nowMs - rule.windowMs);
  return {
    dueRows: ends.length,
    oldestDueAgeMs: ends.length === 0 ? 0 : nowMs - rule.windowMs - Math.min(...ends),
  };
}
