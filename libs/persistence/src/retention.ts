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

/** The instant before which a row of `rule` is past its window. */
export function retentionCutoff(rule: RetentionRule, nowMs: number): Date {
  return new Date(nowMs - rule.windowMs);
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
  return rules.map((rule) => {
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
  });
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
