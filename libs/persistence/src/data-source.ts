/** Data sources, transactions with bounded retries, migrations and the small SQL helpers every repository uses. */
import { randomInt } from 'node:crypto';
import { DataSource, DataSourceOptions, EntityManager, EntitySchema, MixedList } from 'typeorm';
import type { Logger } from '@platform/logger';

export { DataSource, EntityManager };

export const TRANSACTION_ATTEMPTS_MAX = 5;
const RETRY_BASE_DELAY_MS = 5;
const POOL_SIZE_DEFAULT = 10;
const STATEMENT_TIMEOUT_MS_DEFAULT = 10_000;
const CONNECT_TIMEOUT_MS = 5_000;
/**
 * Every session starts at READ COMMITTED, named in the connection's startup
 * packet rather than left to the server's configuration: withTransaction can
 * then open a READ COMMITTED transaction with START TRANSACTION alone, one
 * round trip fewer than START plus SET TRANSACTION ISOLATION LEVEL.
 */
const SESSION_OPTIONS = '-c default_transaction_isolation=read\\ committed';

/** A class TypeORM instantiates: a migration or an entity. */
export type ClassType = abstract new (...args: never[]) => unknown;

export interface DataSourceConfig {
  url: string;
  entities?: MixedList<ClassType | string | EntitySchema>;
  migrations?: MixedList<ClassType | string>;
  poolSize?: number;
  statementTimeoutMs?: number;
  applicationName: string;
}

export function createDataSource(config: DataSourceConfig): DataSource {
  const options: DataSourceOptions = {
    type: 'postgres',
    url: config.url,
    entities: config.entities ?? [],
    migrations: config.migrations ?? [],
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    logging: false,
    applicationName: config.applicationName,
    poolSize: config.poolSize ?? POOL_SIZE_DEFAULT,
    connectTimeoutMS: CONNECT_TIMEOUT_MS,
    extra: {
      statement_timeout: config.statementTimeoutMs ?? STATEMENT_TIMEOUT_MS_DEFAULT,
      idle_in_transaction_session_timeout: 30_000,
      options: SESSION_OPTIONS,
    },
  };
  return new DataSource(options);
}

/** Connects, retrying for a bounded time: the database may still be starting. */
export async function initializeWithRetry(
  dataSource: DataSource,
  logger: Logger,
  timeoutMs = 30_000,
): Promise<DataSource> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await dataSource.initialize();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      logger.warn('database not reachable yet; retrying', { attempt, error: (error as Error).message });
      await sleep(Math.min(2_000, 100 * attempt));
    }
  }
}

const RETRYABLE_SQLSTATES = new Set(['40001', '40P01']);

export function sqlState(error: unknown): string | undefined {
  const candidate = error as { code?: unknown; driverError?: { code?: unknown } };
  const code = candidate?.driverError?.code ?? candidate?.code;
  return typeof code === 'string' ? code : undefined;
}

export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  if (sqlState(error) !== '23505') return false;
  if (!constraint) return true;
  const candidate = error as { constraint?: string; driverError?: { constraint?: string } };
  return (candidate.driverError?.constraint ?? candidate.constraint) === constraint;
}

/**
 * Runs `work` in a transaction, retrying on serialisation failure (40001) and
 * deadlock (40P01) up to TRANSACTION_ATTEMPTS_MAX times with jittered backoff.
 * `work` must be safe to run again: it sees a fresh transaction each time.
 */
export async function withTransaction<T>(
  dataSource: DataSource,
  work: (manager: EntityManager) => Promise<T>,
  isolation: 'READ COMMITTED' | 'REPEATABLE READ' | 'SERIALIZABLE' = 'READ COMMITTED',
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      // READ COMMITTED is every session's default (SESSION_OPTIONS): naming it again would cost a round trip.
      return await (isolation === 'READ COMMITTED'
        ? dataSource.transaction(work)
        : dataSource.transaction(isolation, work));
    } catch (error) {
      const state = sqlState(error);
      if (!state || !RETRYABLE_SQLSTATES.has(state) || attempt >= TRANSACTION_ATTEMPTS_MAX) throw error;
      // Jitter in [0.5, 1.5) of the backoff, so retrying transactions do not collide again in step.
      await sleep((RETRY_BASE_DELAY_MS * 2 ** attempt * (500 + randomInt(1000))) / 1000);
    }
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Entry point body of a service's `migrate.ts`: run pending migrations and exit. */
export async function runMigrations(dataSource: DataSource, logger: Logger): Promise<void> {
  await initializeWithRetry(dataSource, logger);
  try {
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    logger.info('migrations applied', { count: applied.length, names: applied.map((migration) => migration.name) });
  } finally {
    await dataSource.destroy();
  }
}

/**
 * Runs a statement with RETURNING and gives back its rows. TypeORM's postgres
 * driver answers UPDATE/DELETE with `[rows, affectedCount]` but INSERT and
 * SELECT with `rows`; this hides the difference.
 */
export async function queryRows<T = Record<string, unknown>>(
  manager: EntityManager | DataSource,
  sql: string,
  parameters: unknown[] = [],
): Promise<T[]> {
  const result: unknown = await manager.query(sql, parameters);
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number')
    return result[0] as T[];
  return result as T[];
}
