/**
 * Query plans of the statements a repository really sends, for specs that prove a hot
 * query's cost does not grow with the data around it. `explaining(db)` stands in for a
 * data source: every statement goes through `EXPLAIN (ANALYZE, FORMAT JSON)` in a
 * transaction that is rolled back (so a write is planned and run, then undone), then runs
 * for real, and its plan is kept. The spec then asks what each plan read:
 *   - sequentialScans: a Seq Scan over a table that grows is a query without its index;
 *   - rowsExamined: rows each table's scans produced plus those they read and threw away
 *     (filter, index recheck), times loops: what grows when an index does not fit the query.
 * Plans are read from PostgreSQL's JSON format: node names and keys as EXPLAIN writes them.
 */
import type { DataSource } from '@platform/persistence';

/** One node of EXPLAIN's JSON plan, the keys this module reads. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  'Rows Removed by Join Filter'?: number;
  Plans?: PlanNode[];
}

export interface ExplainedStatement {
  sql: string;
  parameters: unknown[];
  plan: PlanNode;
}

/** Nodes that read a table's rows (a Bitmap Index Scan only reads the index: its heap scan counts). */
const TABLE_SCANS = new Set(['Seq Scan', 'Index Scan', 'Index Only Scan', 'Bitmap Heap Scan', 'Tid Scan']);

function* nodesOf(node: PlanNode): Generator<PlanNode> {
  yield node;
  for (const child of node.Plans ?? []) yield* nodesOf(child);
}

function examinedBy(node: PlanNode): number {
  const perLoop =
    (node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0);
  return perLoop * (node['Actual Loops'] ?? 1);
}

/** Rows read per table over the whole plan: { table: rows }. */
export function rowsExamined(plan: PlanNode): Record<string, number> {
  const byTable: Record<string, number> = {};
  for (const node of nodesOf(plan)) {
    const table = node['Relation Name'];
    if (!table || !TABLE_SCANS.has(node['Node Type'])) continue;
    byTable[table] = (byTable[table] ?? 0) + examinedBy(node);
  }
  return byTable;
}

/** The tables of `growing` the plan reads with a sequential scan. */
export function sequentialScans(plan: PlanNode, growing: readonly string[]): string[] {
  const tables = new Set<string>();
  for (const node of nodesOf(plan)) {
    const table = node['Relation Name'];
    if (node['Node Type'] === 'Seq Scan' && table && growing.includes(table)) tables.add(table);
  }
  return [...tables];
}

/**
 * Tables whose rows examined grew from `before` to `after` by more than `ratio`, beyond
 * `slackRows` (a handful of rows is noise, not growth): ["quotes: 3 → 412", …].
 */
export function growth(
  before: Record<string, number>,
  after: Record<string, number>,
  { ratio = 1.2, slackRows = 4 }: { ratio?: number; slackRows?: number } = {},
): string[] {
  return Object.entries(after)
    .filter(([table, rows]) => rows > (before[table] ?? 0) * ratio + slackRows)
    .map(([table, rows]) => `${table}: ${before[table] ?? 0} → ${rows}`);
}

/** The sum, per table, of several statements' rows examined (one operation's statements). */
export function totalRowsExamined(statements: readonly ExplainedStatement[]): Record<string, number> {
  const total: Record<string, number> = {};
  for (const statement of statements)
    for (const [table, rows] of Object.entries(rowsExamined(statement.plan))) total[table] = (total[table] ?? 0) + rows;
  return total;
}

/**
 * What a raw-SQL repository needs of a data source or a transaction's manager: `query`,
 * and `manager` for repositories that default to the data source's manager.
 */
export interface ExplainingQueryable {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
  readonly manager: ExplainingQueryable;
  /** Every statement run so far, with its plan, oldest first. */
  readonly explained: ExplainedStatement[];
  /** Forgets the statements recorded so far (between two measured operations). */
  reset(): void;
}

/** A stand-in for `db` that plans every statement before running it (see the header). */
export function explaining(db: DataSource): ExplainingQueryable {
  const explained: ExplainedStatement[] = [];
  const queryable: ExplainingQueryable = {
    get manager() {
      return queryable;
    },
    explained,
    reset() {
      explained.length = 0;
    },
    async query(sql: string, parameters: unknown[] = []) {
      const runner = db.createQueryRunner();
      try {
        await runner.startTransaction();
        const rows = (await runner.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, parameters)) as Array<{
          'QUERY PLAN': Array<{ Plan: PlanNode }>;
        }>;
        explained.push({ sql, parameters, plan: rows[0]['QUERY PLAN'][0].Plan });
      } finally {
        if (runner.isTransactionActive) await runner.rollbackTransaction();
        await runner.release();
      }
      return db.query(sql, parameters);
    },
  };
  return queryable;
}
