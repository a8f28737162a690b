// Table rows from an order-cost measurement (bench/lib/cost.mjs), and the comparison of two
// (the same load with and without history). Pure (unit-tested).
'use strict';

const { failureText } = require('./stats');

const TRADING_DATABASE = 'svc_trading';
/** Tables and databases below this per order are left out of the printed table (kept in the JSON). */
const ROWS_PER_ORDER_SHOWN_MIN = 0.5;
const COMMITS_PER_ORDER_SHOWN_MIN = 0.01;

const sum = (values) => values.reduce((total, value) => total + (value ?? 0), 0);

function commitsPerOrder(cost) {
  return sum(Object.values(cost.databases).map((counters) => counters.commits));
}

/** Rows read per order over a database's tables (pg_stat_user_tables: sequential + index fetches). */
/** Rows read per order in `database`'s tables (only those named in `tables`, when given). */
function tableRowsRead(cost, database, tables) {
  return sum(
    Object.entries(cost.tables[database] ?? {})
      .filter(([table]) => !tables || tables.includes(table))
      .map(([, counters]) => counters.rowsRead),
  );
}

function unfinishedReason(cost) {
  return cost.unfinished > 0
    ? `${cost.unfinished} of ${cost.orders} orders did not end (settled, rejected, expired) with their webhook in time`
    : undefined;
}

/** "800 orders", or "800 orders created, 777 answered 202" when a create failed after making its order. */
function ordersText(cost) {
  return cost.answered === undefined || cost.answered === cost.orders
    ? `${cost.orders} orders`
    : `${cost.orders} orders created, ${cost.answered} answered 202`;
}

const fixed = (value, digits = 1) => (value ?? 0).toFixed(digits);

/**
 * The cost of an order as rows: CPU per process and in total, commits and rows per service
 * database, rows read per table. `judged` puts the targets on the totals.
 */
function costRows(cost, { section, judged }) {
  const invalid = unfinishedReason(cost);
  const rows = [];
  const cpu = Object.entries(cost.cpuMsPerOrder)
    .filter(([name]) => name !== 'total')
    .sort((left, right) => (right[1] ?? 0) - (left[1] ?? 0));
  rows.push({
    section,
    id: judged ? 'cost.cpu.total' : undefined,
    invalid,
    figure: `CPU ms per order, every process, settlement and webhooks included (${ordersText(cost)})`,
    value: cost.cpuMsPerOrder.total,
  });
  for (const [name, value] of cpu) rows.push({ section, figure: `  CPU ms per order: ${name}`, value, invalid });
  rows.push({
    section,
    id: judged ? 'cost.commits.total' : undefined,
    invalid,
    figure: 'PostgreSQL commits per order, every service database',
    value: commitsPerOrder(cost),
  });
  const databases = Object.entries(cost.databases)
    .filter(
      ([, counters]) =>
        counters.commits >= COMMITS_PER_ORDER_SHOWN_MIN || counters.rowsRead >= ROWS_PER_ORDER_SHOWN_MIN,
    )
    .sort((left, right) => right[1].commits - left[1].commits);
  for (const [database, counters] of databases) {
    rows.push({
      section,
      invalid,
      value: counters.commits,
      figure: `  ${database} commits per order (rows read ${fixed(counters.rowsRead)} = returned + fetched, inserted ${fixed(counters.rowsInserted)}, updated ${fixed(counters.rowsUpdated)})`,
    });
  }
  for (const [database, tables] of Object.entries(cost.tables)) {
    const shown = Object.entries(tables)
      .filter(([, counters]) => counters.rowsRead >= ROWS_PER_ORDER_SHOWN_MIN)
      .sort((left, right) => right[1].rowsRead - left[1].rowsRead);
    for (const [table, counters] of shown) {
      rows.push({
        section,
        invalid,
        value: counters.rowsRead,
        figure: `  rows read per order ${database}.${table} (sequential scans ${fixed(counters.seqScans, 2)}, index scans ${fixed(counters.indexScans, 2)} per order)`,
      });
    }
  }
  return rows;
}

/**
 * Trading's rows read per order with history beside without, judged (≤ 1.2×): over the tables
 * that hold the partner's orders when `historyTables` names them, with every table's total
 * beside, unjudged. A table of one row per partner (its cap window, its profile) is as long
 * with history as without; while the stack holds a handful of partners the planner reads it
 * sequentially, and a scan that stops at the partner's row reads as many rows as stand before
 * it in the heap, which says where the row was last updated to, not what the history costs.
 */
function tradingRowsReadRows({ withHistory, without, historyTables, label, ceiling, invalid, section }) {
  const total = {
    section,
    invalid,
    figure: `trading rows read per order, every table, with ${label}`,
    value: tableRowsRead(withHistory.cost, TRADING_DATABASE),
    ceiling: ceiling('the same'),
    ceilingValue: tableRowsRead(without.cost, TRADING_DATABASE),
  };
  if (!historyTables) return [{ ...total, id: 'volume.tradingRowsRead' }];
  return [
    {
      section,
      id: 'volume.tradingRowsRead',
      invalid,
      figure: `trading rows read per order in the tables holding the partner's orders (${historyTables.join(', ')}), with ${label}`,
      value: tableRowsRead(withHistory.cost, TRADING_DATABASE, historyTables),
      ceiling: ceiling('the same'),
      ceilingValue: tableRowsRead(without.cost, TRADING_DATABASE, historyTables),
    },
    { ...total, figure: `  ${total.figure}` },
  ];
}

/**
 * The same load with `count` earlier orders in the partner's window beside it with none:
 * orders/s, rows read per order in trading (in total and per table, every database), CPU
 * and commits per order. Ceiling column = the run without history (`without`: a partner with
 * none, measured on the same database just before). `earlier`, when given (the orders
 * section's run, before the seeding and the sections between), is printed beside, unjudged.
 * `historyTables`: trading's tables that hold the partner's orders (those the seeding wrote).
 */
function historyRows({ withHistory, without, earlier, historyTables, count, section }) {
  const label = `${count.toLocaleString('en-US')} earlier orders`;
  const ceiling = (what) => `${what}, 0 earlier orders`;
  const latency = (load) => `p50 / p99 ${load.latency.p50Ms} / ${load.latency.p99Ms} ms`;
  const invalid = unfinishedReason(withHistory.cost) ?? unfinishedReason(without.cost);
  const failed = failureText(withHistory.load.failures);
  const rows = [
    {
      section,
      id: 'volume.ordersPerSecond',
      unmet: failed ? `failed: ${failed}` : undefined,
      figure: `orders/s with ${label} in the partner's 24 h window (${latency(withHistory.load)})`,
      value: withHistory.load.ordersPerSecond,
      ceiling: ceiling(`orders/s (${latency(without.load)})`),
      ceilingValue: without.load.ordersPerSecond,
    },
    ...(earlier
      ? [
          {
            section,
            figure: `  orders/s with ${label}, beside the orders section's run (before the seeding)`,
            value: withHistory.load.ordersPerSecond,
            ceiling: `orders/s (${latency(earlier.load)}), orders section`,
            ceilingValue: earlier.load.ordersPerSecond,
          },
        ]
      : []),
    ...tradingRowsReadRows({ withHistory, without, historyTables, label, ceiling, invalid, section }),
  ];
  const databases = new Set([...Object.keys(withHistory.cost.tables), ...Object.keys(without.cost.tables)]);
  for (const database of databases) {
    const tables = new Set([
      ...Object.keys(withHistory.cost.tables[database] ?? {}),
      ...Object.keys(without.cost.tables[database] ?? {}),
    ]);
    for (const table of [...tables].sort()) {
      const value = withHistory.cost.tables[database]?.[table]?.rowsRead ?? 0;
      const zero = without.cost.tables[database]?.[table]?.rowsRead ?? 0;
      if (Math.max(value, zero) < ROWS_PER_ORDER_SHOWN_MIN) continue;
      rows.push({
        section,
        invalid,
        figure: `  rows read per order ${database}.${table}, with ${label}`,
        value,
        ceiling: ceiling('the same'),
        ceilingValue: zero,
      });
    }
  }
  rows.push(
    {
      section,
      invalid,
      figure: `CPU ms per order, every process, with ${label}`,
      value: withHistory.cost.cpuMsPerOrder.total,
      ceiling: ceiling('the same'),
      ceilingValue: without.cost.cpuMsPerOrder.total,
    },
    {
      section,
      invalid,
      figure: `PostgreSQL commits per order, with ${label}`,
      value: commitsPerOrder(withHistory.cost),
      ceiling: ceiling('the same'),
      ceilingValue: commitsPerOrder(without.cost),
    },
  );
  return rows;
}

module.exports = { costRows, historyRows, commitsPerOrder, tableRowsRead, ordersText, TRADING_DATABASE };
