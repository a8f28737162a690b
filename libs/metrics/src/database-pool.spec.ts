// Proves the pool gauges read node-postgres's counters at scrape (in use = total
// minus idle), and that a data source without a pg pool is left out of the scrape
// and counted as a failed measurement rather than reported as an empty pool.
import { observeDatabasePool } from './database-pool';
import { Registry } from './registry';

describe('observeDatabasePool', () => {
  it('reports connections in use, idle, the bound and waiting clients', async () => {
    const registry = new Registry();
    const master = { totalCount: 7, idleCount: 2, waitingCount: 3, options: { max: 10 } };
    observeDatabasePool({ driver: { master } }, registry);
    const text = await registry.metrics();
    expect(text).toMatch(/^db_pool_connections_in_use 5$/m);
    expect(text).toMatch(/^db_pool_connections_idle 2$/m);
    expect(text).toMatch(/^db_pool_connections_max 10$/m);
    expect(text).toMatch(/^db_pool_waiting_clients 3$/m);
  });

  it('counts a data source without a pool as a failed measurement', async () => {
    const registry = new Registry();
    observeDatabasePool({ driver: {} }, registry);
    const text = await registry.metrics();
    expect(text).not.toMatch(/^db_pool_connections_in_use /m);
    expect(text).toContain('metrics_probe_failures_total{probe="db_pool"} 1');
  });
});
