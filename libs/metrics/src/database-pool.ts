/**
 * The PostgreSQL connection pool of a service (TypeORM's pg Pool at
 * dataSource.driver.master), read at scrape: connections in use and idle, the
 * pool's bound, and queries waiting for a connection. Waiting clients for more
 * than a moment mean the pool (or the database) is the bottleneck.
 */
import { metricsRegistry, Registry } from './registry';
import { ScrapeProbes } from './scrape-probes';

/** The counters node-postgres keeps on its Pool. */
interface PgPool {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
  options?: { max?: number };
}

/** Anything with TypeORM's postgres driver: a DataSource. */
export interface PooledDataSource {
  driver: unknown;
}

function poolOf(dataSource: PooledDataSource): PgPool {
  const pool = (dataSource.driver as { master?: Partial<PgPool> } | undefined)?.master;
  if (
    !pool ||
    typeof pool.totalCount !== 'number' ||
    typeof pool.idleCount !== 'number' ||
    typeof pool.waitingCount !== 'number'
  ) {
    throw new Error('the data source has no pg pool (not initialised, or not postgres)');
  }
  return pool as PgPool;
}

/** Reports `dataSource`'s pool at every scrape; returns the function that stops it. */
export function observeDatabasePool(dataSource: PooledDataSource, registry: Registry = metricsRegistry): () => void {
  const probes = ScrapeProbes.group(
    'db_pool',
    {
      inUse: {
        name: 'db_pool_connections_in_use',
        help: 'PostgreSQL connections of the pool serving a query or transaction now.',
      },
      idle: { name: 'db_pool_connections_idle', help: 'PostgreSQL connections of the pool open and free.' },
      max: { name: 'db_pool_connections_max', help: "The pool's bound on PostgreSQL connections." },
      waiting: {
        name: 'db_pool_waiting_clients',
        help: 'Queries and transactions waiting for a free connection of the pool.',
      },
    },
    [],
    registry,
  );
  return probes.add({}, () => {
    const pool = poolOf(dataSource);
    return {
      inUse: pool.totalCount - pool.idleCount,
      idle: pool.idleCount,
      max: pool.options?.max ?? 0,
      waiting: pool.waitingCount,
    };
  });
}
