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
 * week kept because it held a row still needed). The partition code itself is
 * in ./partitions.
 */
import type { Logger } from '@platform/logger';
import type { DataSource } from 'typeorm';
import { BatchSweeper } from './batch-sweeper';
import { sqlState } from './data-source';
import { DUE_ROWS_COUNTED_MAX } from './due-rows';
import {
  checkPartitionRule,
  expiredPartitions,
  maintainPartitions,
  PartitionRule,
  SQL_IDENTIFIER,
  WEEK_MS,
} from './partitions';

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
  /**
   * The table is dropped whole some day (the range below a table's first week, `WeeklyPartitioning.below`,
   * once past the window): until then its rows are pruned by batch; once it (or a dependent) is gone,
   * the rule finds no table and prunes nothing.
   */
  untilDropped?: true;
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
  /**
   * The range below the first week, one table per partitioned table (this rule's, then `alongside`):
   * the tables from before the partitioning, attached `FROM (MINVALUE) TO (<first week>)`. Dropped as a
   * week is once its end is past the window and nothing in it matches `holds`.
   */
  below?: readonly string[];
}

export interface RetentionOptions {
  /** How often each replica looks for rows past their window. */
  intervalMs: number;
  /** Rows one statement deletes at most. */
  batchSize: number;
}

/** Bounds of a retention batch: large enough to keep up, small enough that a delete stays short. */
export const RETENTION_BATCH_SIZE_MAX = 5_000;

function identifiers(rule: RetentionRule): void {
  const names = [
    rule.table,
    rule.idColumn,
    rule.timeColumn,
    ...(rule.dependents ?? []).flatMap((d) => [d.table, d.column]),
  ];
  const bad = names.find((name) => !SQL_IDENTIFIER.test(name));
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
  const rows = await queryUnlessDropped(dataSource, rule, pruneSql(rule), [retentionCutoff(rule, nowMs), batchSize]);
  return (rows as Array<{ pruned: number }>)[0]?.pruned ?? 0;
}

const UNDEFINED_TABLE = '42P01';

/** `sql`'s rows; none when `rule`'s table, or a dependent's, was dropped and the rule says it may be. */
async function queryUnlessDropped(
  dataSource: Pick<DataSource, 'query'>,
  rule: RetentionRule,
  sql: string,
  parameters: unknown[],
): Promise<unknown[]> {
  try {
    return (await dataSource.query(sql, parameters)) as unknown[];
  } catch (error) {
    if (rule.untilDropped && sqlState(error) === UNDEFINED_TABLE) return [];
    throw error;
  }
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
    const [row] = (await queryUnlessDropped(dataSource, rule, sql, [
      retentionCutoff(rule, Date.now()),
      DUE_ROWS_COUNTED_MAX,
    ])) as Array<{ due_rows: number; oldest_due_age_ms: string }>;
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

/** How much later than the window batches reach into a table partitioned by week: a week, and a day of margin. */
export const BATCH_LAG_BEHIND_DROPS_MS = WEEK_MS + 24 * 60 * 60_000;

/** The partition maintenance of a rule partitioned by week: its table first, then those partitioned alongside. */
export function partitionRuleOf(rule: RetentionRule, partitioning: WeeklyPartitioning): PartitionRule {
  return {
    tables: [rule.table, ...partitioning.alongside],
    aheadCount: partitioning.aheadCount,
    windowMs: rule.windowMs,
    holds: partitioning.holds,
    ...(partitioning.below ? { below: partitioning.below } : {}),
  };
}

/** The partition maintenance of `rule` as a BatchSweeper (worker `partitions_<first table>`), one pass per interval. */
export function partitionSweeper(
  dataSource: DataSource,
  rule: PartitionRule,
  logger: Logger,
  options: RetentionOptions,
): BatchSweeper {
  checkPartitionRule(rule);
  const child = logger.child({ context: 'PartitionMaintenance', table: rule.tables[0] });
  return new BatchSweeper(
    `partitions of ${rule.tables.join(', ')}`,
    // A pass does what is due and answers less than the batch size, so the sweeper waits for the next interval.
    async () => Math.min(await maintainPartitions(dataSource, rule, child), options.batchSize - 1),
    child,
    { intervalMs: options.intervalMs, batchSize: options.batchSize },
    { worker: `partitions_${rule.tables[0]}`, measureDue: () => expiredPartitions(dataSource, rule) },
  );
}
