/**
 * A read run as a named prepared statement on the data source's pool, for the
 * hot reads whose planning costs as much as their execution (a page of a
 * hundred rows behind a few joins). Each pooled connection parses the
 * statement once; after PostgreSQL's first few executions with custom plans
 * it keeps one generic plan when that plan is no dearer, and from then on an
 * execution is bind and run only. Only for statements whose generic plan is
 * known to be the right one at any data size (check it with
 * `SET plan_cache_mode = force_generic_plan; EXPLAIN EXECUTE ...` on a large
 * table): a parameter that decides which index serves belongs in the text,
 * as a separate statement, not in a `$n IS NULL OR ...` condition.
 *
 * It goes to the pool directly, outside TypeORM's query runner: no
 * transaction, and the rows as the pg driver gives them.
 *
 * A connection keeps its prepared statements for its life. PostgreSQL replans
 * one when a table it reads changes (a partition created or dropped), but a
 * migration that changes the type of a column a statement returns makes every
 * such connection refuse it ("cached plan must not change result type") until
 * the service restarts: such a migration ships with the statement's text
 * changed (its name follows its text) or with the services restarted after it.
 */
import { createHash } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';

/** The part of pg's Pool, or of one of its clients, this needs (TypeORM's postgres driver keeps the pool as `master`). */
interface PgPool {
  query(config: { name: string; text: string; values: unknown[]; rowMode?: 'array' }): Promise<{ rows: unknown[] }>;
}

/** Statement names made so far, by text (the texts are a handful of constants; past this bound a name is hashed again each time). */
const namesByText = new Map<string, string>();
const NAMES_REMEMBERED_MAX = 256;
/** PostgreSQL truncates names past 63 bytes; a purpose and 16 hex digits stay far below. */
const PURPOSE_LENGTH_MAX = 40;

/**
 * The statement's name: its purpose and a hash of its text, so two texts never
 * share a name (a connection keeps whichever text it parsed first under a name).
 */
export function preparedStatementName(purpose: string, text: string): string {
  const known = namesByText.get(text);
  if (known !== undefined) return known;
  if (!/^[a-z][a-z0-9_]*$/.test(purpose) || purpose.length > PURPOSE_LENGTH_MAX)
    throw new Error(`a prepared statement's purpose is a short snake_case word, not ${JSON.stringify(purpose)}`);
  const name = `${purpose}_${createHash('sha256').update(text).digest('hex').slice(0, 16)}`;
  if (namesByText.size < NAMES_REMEMBERED_MAX) namesByText.set(text, name);
  return name;
}

function poolOf(dataSource: DataSource): PgPool {
  const pool = (dataSource.driver as { master?: PgPool }).master;
  if (!pool) throw new Error('the data source is not initialised (no connection pool)');
  return pool;
}

/** The rows of `text` run as the named prepared statement `purpose`, each an object keyed by column. */
export async function queryPrepared<T>(
  dataSource: DataSource,
  purpose: string,
  text: string,
  values: unknown[],
): Promise<T[]> {
  const result = await poolOf(dataSource).query({ name: preparedStatementName(purpose, text), text, values });
  return result.rows as T[];
}

/** The same, each row an array of its columns in select order (no object built per row). */
export async function queryPreparedArrays<T extends unknown[]>(
  dataSource: DataSource,
  purpose: string,
  text: string,
  values: unknown[],
): Promise<T[]> {
  const result = await poolOf(dataSource).query({
    name: preparedStatementName(purpose, text),
    text,
    values,
    rowMode: 'array',
  });
  return result.rows as T[];
}

/**
 * The rows of `text` run as the named prepared statement `purpose` in the
 * transaction `manager` belongs to: on that transaction's own connection (its
 * query runner's pg client), so the statement sees and holds what the
 * transaction does. A hot statement run in a short transaction (a settlement
 * round's locks and writes) is then parsed and planned once per connection,
 * not once per run. A manager outside any transaction (the data source's own)
 * runs it on the pool, as queryPrepared. The same rule holds for the plan as
 * for queryPrepared: only a statement whose generic plan is right at any size.
 */
export async function queryPreparedIn<T>(
  manager: EntityManager,
  purpose: string,
  text: string,
  values: unknown[],
): Promise<T[]> {
  const runner = manager.queryRunner;
  // Outside a transaction: the data source's pool (a test's stand-in for a data source is its own manager).
  if (!runner) return queryPrepared<T>(manager.connection ?? (manager as unknown as DataSource), purpose, text, values);
  if (runner.isReleased) throw new Error('the transaction has ended (its query runner is released)');
  const client = (await runner.connect()) as PgPool;
  const result = await client.query({ name: preparedStatementName(purpose, text), text, values });
  return result.rows as T[];
}
