// The cost of an order, measured around a load: CPU milliseconds per process (services,
// PostgreSQL with all its backends, RabbitMQ, Redis) from /proc/<pid>/stat, and PostgreSQL
// commits and rows per service database and per table from the statistics views.
//
// Timeline of one measurement:
//   quiet (earlier orders ended) → STATS_FLUSH_WAIT_MS → snapshot S0
//   → IDLE_BASELINE_MS with no load → snapshot S1 (S1 − S0: the idle background per second)
//   → the load → every order it created settled (or otherwise ended) and its final webhook
//     delivered (at most ORDER_END_WAIT_MAX_MS) → CPU snapshot → STATS_FLUSH_WAIT_MS →
//     statistics snapshot.
// Per order = (end − S1 − idle background over the same time) ÷ orders created. Orders
// created, not orders answered 202: a create answered 503 may still have made its order, and
// that order's work is in the window. The raw figures (idle background included) are kept in
// the JSON beside.
import { createRequire } from 'node:module';
import { sleep } from '../../scripts/lib/processes.mjs';
import {
  DATABASE_SNAPSHOT_SQL,
  STATS_FLUSH_WAIT_MS,
  TABLE_SNAPSHOT_SQL,
  databaseCounters,
  difference,
  perOperation,
  perSecond,
  tableCounters,
  total,
} from './counters.js';
import { clockTicksPerSecond, cpuTicksSnapshot } from './proc.js';

const require = createRequire(import.meta.url);
const { Client } = require('pg');

export const IDLE_BASELINE_MS = 10_000;
export const ORDER_END_WAIT_MAX_MS = 180_000;

/** One connection per service database (table counters) and one to `postgres` (database counters). */
export async function openStatistics(urlTemplate, databases) {
  const connect = async (database) => {
    const client = new Client({ connectionString: urlTemplate.replace('{database}', database) });
    await client.connect();
    return client;
  };
  const admin = await connect('postgres');
  const perDatabase = new Map();
  for (const database of databases) perDatabase.set(database, await connect(database));
  return {
    async snapshot() {
      const tables = {};
      for (const [database, client] of perDatabase) {
        const { rows } = await client.query(TABLE_SNAPSHOT_SQL);
        tables[database] = Object.fromEntries(rows.map((row) => [row.relname, tableCounters(row)]));
      }
      const { rows } = await admin.query(DATABASE_SNAPSHOT_SQL, [databases]);
      return { databases: Object.fromEntries(rows.map((row) => [row.datname, databaseCounters(row)])), tables };
    },
    async serverVersion() {
      const { rows } = await admin.query('SHOW server_version');
      return rows[0].server_version;
    },
    async close() {
      await Promise.all([admin, ...perDatabase.values()].map((client) => client.end().catch(() => {})));
    },
  };
}

const ticksToMs = (snapshot) =>
  Object.fromEntries(
    Object.entries(snapshot).map(([name, ticks]) => [
      name,
      ticks === null ? null : (ticks * 1000) / clockTicksPerSecond(),
    ]),
  );

async function snapshot(statistics, processes) {
  const at = Date.now();
  return { at, cpuMs: ticksToMs(cpuTicksSnapshot(processes)), pg: await statistics.snapshot() };
}

/**
 * Measures `load` (resolving to { orderIds (answered 202), … }) as above. `createdSince(ms)`
 * resolves to the ids of the orders the load's partner created since then, `waitEnded(ids, ms)`
 * to the ids whose final webhook has not arrived. Resolves to { load, cost } (cost null when
 * no order was created).
 */
export async function measureOrderCost({
  statistics,
  processes,
  waitEnded,
  createdSince,
  earlierOrderIds = [],
  load,
  log = () => {},
}) {
  const unfinishedBefore = await waitEnded(earlierOrderIds, ORDER_END_WAIT_MAX_MS);
  if (unfinishedBefore.length > 0) log(`  ${unfinishedBefore.length} earlier order(s) not ended yet; measuring anyway`);
  await sleep(STATS_FLUSH_WAIT_MS);
  const s0 = await snapshot(statistics, processes);
  await sleep(IDLE_BASELINE_MS);
  const s1 = await snapshot(statistics, processes);
  const result = await load();
  const created = [...new Set([...result.orderIds, ...(await createdSince(s1.at))])];
  const missing = await waitEnded(created, ORDER_END_WAIT_MAX_MS);
  const cpuEndAt = Date.now();
  const cpuEnd = ticksToMs(cpuTicksSnapshot(processes));
  await sleep(STATS_FLUSH_WAIT_MS);
  const pgEnd = await statistics.snapshot();
  const pgEndAt = Date.now();
  const orders = created.length;
  if (orders === 0) return { load: result, created, cost: null };
  const idleSeconds = (s1.at - s0.at) / 1000;
  const idle = { cpuMs: difference(s1.cpuMs, s0.cpuMs), pg: difference(s1.pg, s0.pg) };
  const window = { cpuMs: difference(cpuEnd, s1.cpuMs), pg: difference(pgEnd, s1.pg) };
  const cpuWindowSeconds = (cpuEndAt - s1.at) / 1000;
  const pgWindowSeconds = (pgEndAt - s1.at) / 1000;
  const cpuMsPerOrder = perOperation(window.cpuMs, idle.cpuMs, {
    windowSeconds: cpuWindowSeconds,
    idleSeconds,
    operations: orders,
  });
  const pgPerOrder = perOperation(window.pg, idle.pg, {
    windowSeconds: pgWindowSeconds,
    idleSeconds,
    operations: orders,
  });
  const raw = {
    cpuMsPerOrder: perOperation(window.cpuMs, null, {
      windowSeconds: cpuWindowSeconds,
      idleSeconds,
      operations: orders,
    }),
    pgPerOrder: perOperation(window.pg, null, { windowSeconds: pgWindowSeconds, idleSeconds, operations: orders }),
  };
  return {
    load: result,
    created,
    cost: {
      orders,
      answered: result.orderIds.length,
      unfinished: missing.length,
      idleSeconds,
      cpuWindowSeconds,
      pgWindowSeconds,
      cpuMsPerOrder: { ...cpuMsPerOrder, total: total(cpuMsPerOrder) },
      databases: pgPerOrder.databases,
      tables: pgPerOrder.tables,
      idleBackgroundPerSecond: {
        cpuMs: perSecond(idle.cpuMs, idleSeconds),
        databases: perSecond(idle.pg.databases, idleSeconds),
      },
      raw,
    },
  };
}
