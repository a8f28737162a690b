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
 * A plan does not show what a function or a trigger the statement calls reads, so the same
 * rolled-back transaction is asked for its own table statistics too (pg_stat_xact_user_tables:
 * sequential scans, rows read sequentially and fetched by index, per table), and an operation
 * counts whichever of the two sees more.
 */
import { createDataSource, DataSource } from '@platform/persistence';

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

/** What one statement's transaction read of a table, from its own statistics (triggers and functions included). */
export interface TableReads {
  seqScans: number;
  rows: number;
}

export interface ExplainedStatement {
  sql: string;
  parameters: unknown[];
  plan: PlanNode;
  /** Per table the statement's transaction touched: { table: reads }. */
  tableReads: Record<string, TableReads>;
}

/** This backend's reads per user table not yet flushed to the shared statistics (this transaction's among them). */
const TRANSACTION_TABLE_READS = `SELECT relname AS "table", seq_scan::int AS "seqScans",
    (seq_tup_read + coalesce(idx_tup_fetch, 0))::bigint::text AS "rows"
  FROM pg_stat_xact_user_tables WHERE seq_scan > 0 OR seq_tup_read > 0 OR idx_tup_fetch > 0`;

async function transactionTableReads(runner: {
  query(sql: string): Promise<unknown>;
}): Promise<Record<string, TableReads>> {
  const reads = (await runner.query(TRANSACTION_TABLE_READS)) as Array<{
    table: string;
    seqScans: number;
    rows: string;
  }>;
  return Object.fromEntries(reads.map((read) => [read.table, { seqScans: read.seqScans, rows: Number(read.rows) }]));
}

/** What was read between two readings of the same transaction's statistics, per table read at all. */
function readsSince(before: Record<string, TableReads>, after: Record<string, TableReads>): Record<string, TableReads> {
  const since: Record<string, TableReads> = {};
  for (const [table, reads] of Object.entries(after)) {
    const seqScans = reads.seqScans - (before[table]?.seqScans ?? 0);
    const rows = reads.rows - (before[table]?.rows ?? 0);
    if (seqScans > 0 || rows > 0) since[table] = { seqScans, rows };
  }
  return since;
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

/**
 * The sum, per table, of several statements' rows examined (one operation's statements):
 * for each statement, per table, the larger of what its plan shows and what its
 * transaction's statistics counted (the latter sees inside functions and triggers).
 */
export function totalRowsExamined(statements: readonly ExplainedStatement[]): Record<string, number> {
  const total: Record<string, number> = {};
  for (const statement of statements) {
    const planned = rowsExamined(statement.plan);
    const tables = new Set([...Object.keys(planned), ...Object.keys(statement.tableReads ?? {})]);
    for (const table of tables) {
      const rows = Math.max(planned[table] ?? 0, statement.tableReads?.[table]?.rows ?? 0);
      total[table] = (total[table] ?? 0) + rows;
    }
  }
  return total;
}

/** The growing tables a statement read sequentially: in its plan, or inside what it called. */
export function statementSequentialScans(statement: ExplainedStatement, growing: readonly string[]): string[] {
  const inside = Object.entries(statement.tableReads ?? {})
    .filter(([table, reads]) => reads.seqScans > 0 && growing.includes(table))
    .map(([table]) => table);
  return [...new Set([...sequentialScans(statement.plan, growing), ...inside])];
}

/**
 * What a raw-SQL repository needs of a data source or a transaction's manager: `query`,
 * and `manager` for repositories that default to the data source's manager.
 */
export interface ExplainingQueryable {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
  readonly manager: ExplainingQueryable;
  /**
   * Where @platform/persistence's named prepared statements find the pool
   * (`driver.master`): they are planned and run like any other statement here.
   */
  readonly driver: { master: PreparedStatementPool };
  /** Every statement run so far, with its plan, oldest first. */
  readonly explained: ExplainedStatement[];
  /** Forgets the statements recorded so far (between two measured operations). */
  reset(): void;
}

/** The part of node-postgres's pool that a named prepared statement is sent through. */
interface PreparedStatementPool {
  query(config: { text: string; values?: unknown[]; rowMode?: 'array' }): Promise<{ rows: unknown[] }>;
}

/** A stand-in for `db` that plans every statement before running it (see the header). */
export function explaining(db: DataSource): ExplainingQueryable {
  const explained: ExplainedStatement[] = [];
  const queryable: ExplainingQueryable = {
    get manager() {
      return queryable;
    },
    driver: {
      master: {
        async query({ text, values, rowMode }) {
          const rows = (await queryable.query(text, values)) as Array<Record<string, unknown>>;
          return { rows: rowMode === 'array' ? rows.map((row) => Object.values(row)) : rows };
        },
      },
    },
    explained,
    reset() {
      explained.length = 0;
    },
    async query(sql: string, parameters: unknown[] = []) {
      const runner = db.createQueryRunner();
      try {
        await runner.startTransaction();
        // The view also holds counts of this connection's earlier transactions not yet flushed: read it on
        // both sides of the statement, in one transaction (nothing is flushed inside one), and keep the difference.
        const readsBefore = await transactionTableReads(runner);
        const rows = (await runner.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, parameters)) as Array<{
          'QUERY PLAN': Array<{ Plan: PlanNode }>;
        }>;
        const tableReads = readsSince(readsBefore, await transactionTableReads(runner));
        explained.push({ sql, parameters, plan: rows[0]['QUERY PLAN'][0].Plan, tableReads });
      } finally {
        if (runner.isTransactionActive) await runner.rollbackTransaction();
        await runner.release();
      }
      return db.query(sql, parameters);
    },
  };
  return queryable;
}

/** Every table scan of a plan, as "Index Scan <index> on <table>": what a failure message shows. */
export function scansOf(node: PlanNode): string[] {
  const own = node['Relation Name']
    ? [`${node['Node Type']}${node['Index Name'] ? ` ${node['Index Name']}` : ''} on ${node['Relation Name']}`]
    : [];
  return [...own, ...(node.Plans ?? []).flatMap(scansOf)];
}

/** What one operation read: sequential scans of growing tables, rows per table, and each scan. */
export interface MeasuredOperation {
  seqScans: string[];
  rows: Record<string, number>;
  scans: string[];
}

export type PlannedOperation<Context> = (queryable: ExplainingQueryable, context: Context) => Promise<unknown>;

/**
 * Runs each operation once through one explaining stand-in for `db`, in order, and says
 * what each read. An operation that sent no statement is a mistake in the spec: refused.
 */
export async function measureOperations<Context>(
  db: DataSource,
  operations: Record<string, PlannedOperation<Context>>,
  context: Context,
  growingTables: readonly string[],
): Promise<Record<string, MeasuredOperation>> {
  const queryable = explaining(db);
  const measured: Record<string, MeasuredOperation> = {};
  for (const [name, operation] of Object.entries(operations)) {
    queryable.reset();
    await operation(queryable, context);
    if (queryable.explained.length === 0) throw new Error(`${name} sent no statement to plan`);
    measured[name] = {
      seqScans: queryable.explained.flatMap((statement) => statementSequentialScans(statement, growingTables)),
      rows: totalRowsExamined(queryable.explained),
      scans: queryable.explained.flatMap((statement) => scansOf(statement.plan)),
    };
  }
  return measured;
}

/**
 * A service's schema on a scratch database: its own migrations, run as the service runs
 * them. Seeding writes tens of thousands of rows a statement, so the statement timeout is
 * the caller's, not a service's.
 */
export async function migratedDataSource(
  url: string,
  migrations: NonNullable<Parameters<typeof createDataSource>[0]['migrations']>,
  statementTimeoutMs: number,
): Promise<DataSource> {
  const db = await createDataSource({
    url,
    applicationName: 'query-plans-spec',
    migrations,
    poolSize: 4,
    statementTimeoutMs,
  }).initialize();
  await db.runMigrations({ transaction: 'each' });
  return db;
}
