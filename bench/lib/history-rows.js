// The history bench's table: every figure of a run on a seeded database beside the same run
// on an empty one (ceiling column = the empty run), the sizes seeded, the tables' sizes after
// the seeding and the disk an order takes. Pure (unit-tested).
'use strict';

const { commitsPerOrder } = require('./cost-rows');
const { failureText, loadInvalid } = require('./stats');

/** The history sizes at scale 1 (`--history`); `small` is 1/100 of them, `large` ten times. */
const HISTORY_SIZES = Object.freeze({
  partners: 10_000,
  backgroundOrders: 1_000_000,
  backgroundTransfers: 1_000_000,
  hotOrders: 100_000,
  backgroundSpanDays: 90,
  /** Finished webhook deliveries (each with its attempt) seeded before the webhook rows, over `partners`. */
  webhookDeliveries: 1_000_000,
});
const HISTORY_SCALES = Object.freeze({ small: 0.01, full: 1, large: 10 });
/** Tables read less than this per order in both runs are left out of the printed table (kept in the JSON). */
const ROWS_PER_ORDER_SHOWN_MIN = 0.5;
const MIB = 2 ** 20;
const ORDERS_PROJECTED = 100_000_000;

/** The scale `--history [small|full|large]` names (`full` when no size follows); throws on another word. */
function historyScale(argv) {
  const at = argv.indexOf('--history');
  if (at < 0) return null;
  const next = argv[at + 1];
  if (next === undefined || next.startsWith('--')) return { name: 'full', factor: HISTORY_SCALES.full };
  if (!(next in HISTORY_SCALES))
    throw new Error(`--history takes ${Object.keys(HISTORY_SCALES).join(', ')} or nothing, got "${next}"`);
  return { name: next, factor: HISTORY_SCALES[next] };
}

/** What to seed at a scale: { partners, backgroundOrders, backgroundTransfers, hotOrders, backgroundSpanDays, webhookDeliveries }, at least 2 of each. */
function historySizes(factor) {
  const scaled = (n) => Math.max(2, Math.round(n * factor));
  return {
    partners: scaled(HISTORY_SIZES.partners),
    backgroundOrders: scaled(HISTORY_SIZES.backgroundOrders),
    backgroundTransfers: scaled(HISTORY_SIZES.backgroundTransfers),
    hotOrders: scaled(HISTORY_SIZES.hotOrders),
    backgroundSpanDays: HISTORY_SIZES.backgroundSpanDays,
    webhookDeliveries: scaled(HISTORY_SIZES.webhookDeliveries),
  };
}

const latencyText = (figure) => `p50 / p99 ${figure.p50Ms} / ${figure.p99Ms} ms`;
/** The ceiling column: the same figure on the empty database. */
const ceiling = (what) => `${what}, empty database`;

/** The rows-read baseline: a partner with no earlier orders, on the same seeded database. */
const FRESH_CEILING = 'the same, no earlier orders, same database';

/**
 * One measured run ({ load, cost, reads: { name: cannon figure } }) of the seeded database
 * beside the same on the empty one. Throughputs are judged by their ratio (≥ 0.85), latencies
 * (p50, p99) by theirs (≤ 1.15). Rows read per order per table are judged (≤ 1.2) against
 * `fresh` ({ load, cost }: a partner without earlier orders on the same seeded database), so
 * that what is judged is the partner's history alone: a plan the planner changes for a table
 * a few rows long (a sequential scan of the three rows of a per-partner table, where the empty
 * run's statistics had it use the index) is not history. Beside them, unjudged, the same
 * against the empty database. Without `fresh`, the empty run is the judged baseline.
 */
function historyComparisonRows({ seeded, empty, fresh, label, section }) {
  const rows = [];
  const invalidCost =
    seeded.cost.unfinished > 0 || empty.cost.unfinished > 0
      ? 'orders did not end with their webhook in time'
      : undefined;
  const failed = failureText(seeded.load.failures) || failureText(empty.load.failures);
  rows.push(
    {
      section,
      id: 'history.throughput',
      unmet: failed ? `failed: ${failed}` : undefined,
      figure: `orders/s with ${label}`,
      value: seeded.load.ordersPerSecond,
      ceiling: ceiling('orders/s'),
      ceilingValue: empty.load.ordersPerSecond,
    },
    ...['p50Ms', 'p99Ms'].map((key) => ({
      section,
      id: 'history.latency',
      figure: `  order (quote + buy) ${key.slice(0, 3)} ms with ${label}`,
      value: seeded.load.latency[key],
      ceiling: ceiling('the same'),
      ceilingValue: empty.load.latency[key],
    })),
  );
  for (const [name, figure] of Object.entries(seeded.reads)) {
    const before = empty.reads[name];
    const invalid = readInvalid(figure) ?? readInvalid(before);
    rows.push(
      {
        section,
        id: 'history.throughput',
        invalid,
        figure: `signed ${name} req/s with ${label} (${latencyText(figure)})`,
        value: figure.requestsPerSecond,
        ceiling: ceiling(`req/s (${latencyText(before)})`),
        ceilingValue: before.requestsPerSecond,
      },
      ...['p50Ms', 'p99Ms'].map((key) => ({
        section,
        id: 'history.latency',
        invalid,
        figure: `  ${name} ${key.slice(0, 3)} ms`,
        value: figure[key],
        ceiling: ceiling('the same'),
        ceilingValue: before[key],
      })),
    );
  }
  const baseline = fresh ?? empty;
  const invalidBaseline = fresh?.cost.unfinished > 0 ? 'orders did not end with their webhook in time' : undefined;
  rows.push(
    ...rowsReadRows({
      seeded,
      baseline,
      baselineName: fresh ? FRESH_CEILING : ceiling('the same'),
      judged: true,
      label,
      section,
      invalid: invalidCost ?? invalidBaseline,
    }),
  );
  if (fresh)
    rows.push(
      ...rowsReadRows({ seeded, baseline: empty, baselineName: ceiling('the same'), judged: false, label, section }),
    );
  rows.push(
    {
      section,
      invalid: invalidCost,
      figure: `CPU ms per order, every process, settlement and webhooks included, with ${label}`,
      value: seeded.cost.cpuMsPerOrder.total,
      ceiling: ceiling('the same'),
      ceilingValue: empty.cost.cpuMsPerOrder.total,
    },
    {
      section,
      invalid: invalidCost,
      figure: `  CPU ms per order, webhook-delivery, with ${label}`,
      value: seeded.cost.cpuMsPerOrder['webhook-delivery'] ?? null,
      ceiling: ceiling('the same'),
      ceilingValue: empty.cost.cpuMsPerOrder['webhook-delivery'] ?? null,
    },
    {
      section,
      invalid: invalidCost,
      figure: `PostgreSQL commits per order, with ${label}`,
      value: commitsPerOrder(seeded.cost),
      ceiling: ceiling('the same'),
      ceilingValue: commitsPerOrder(empty.cost),
    },
  );
  return rows;
}

function readInvalid(figure) {
  if (!figure) return 'not measured on the empty database';
  return loadInvalid(figure);
}

/**
 * Rows read per order (pg_stat_user_tables: sequential + index fetches) for every table either
 * run read, beside `baseline`'s; `judged`: ≤ 1.2× it, and a table the baseline did not read
 * and the seeded run does fails outright.
 */
function rowsReadRows({ seeded, baseline, baselineName, judged, label, section, invalid }) {
  const rows = [];
  const databases = new Set([...Object.keys(seeded.cost.tables), ...Object.keys(baseline.cost.tables)]);
  for (const database of [...databases].sort()) {
    const tables = new Set([
      ...Object.keys(seeded.cost.tables[database] ?? {}),
      ...Object.keys(baseline.cost.tables[database] ?? {}),
    ]);
    for (const table of [...tables].sort()) {
      const value = seeded.cost.tables[database]?.[table]?.rowsRead ?? 0;
      const zero = baseline.cost.tables[database]?.[table]?.rowsRead ?? 0;
      if (Math.max(value, zero) < ROWS_PER_ORDER_SHOWN_MIN) continue;
      rows.push({
        section,
        ...(judged
          ? {
              id: 'history.rowsRead',
              invalid,
              unmet: zero < ROWS_PER_ORDER_SHOWN_MIN ? 'read only with history' : undefined,
            }
          : {}),
        figure: `  rows read per order ${database}.${table}, with ${label}${judged ? '' : ' (beside the empty database)'}`,
        value,
        ceiling: baselineName,
        ceilingValue: zero,
      });
    }
  }
  return rows;
}

/**
 * The seeding and the disk it took: orders seeded, rows per table, each table's heap and
 * index size after it, the time each seeding step took (`timings`: { step: ms }), and the
 * databases' growth per million orders projected to 100 million.
 * sizes: { 'db.table': { tableBytes, indexBytes, liveRows } }; growthBytes: databases' size
 * after − before the orders' seeding (partners included); ordersSeeded: every seeded order;
 * transfers (optional): { growthBytes, count } of the transfers' seeding, which follows it.
 */
/** Seeding steps shorter than this are left out of the printed table (they stay in the results file). */
const SEEDING_STEP_SHOWN_MIN_MS = 500;

function seedingRows({ seedings, sizes, growthBytes, ordersSeeded, transfers, section }) {
  const rows = [];
  for (const seeding of seedings) {
    rows.push({
      section,
      figure: `seeded ${seeding.what}: ${seeding.count.toLocaleString('en-US')} ${seeding.unit ?? 'orders'} over ${seeding.span} in ${(seeding.durationMs / 1000).toFixed(0)} s`,
      value: seeding.count,
    });
    // Where its time went: each table's inserts, the set-based statement lines, the checks, the commit, ANALYZE.
    for (const [name, ms] of Object.entries(seeding.timings ?? {}).sort((left, right) => right[1] - left[1])) {
      if (ms < SEEDING_STEP_SHOWN_MIN_MS) continue;
      rows.push({ section, figure: `  ${seeding.what}: ${name}, s`, value: Number((ms / 1000).toFixed(1)) });
    }
  }
  const largest = Object.entries(sizes).sort(
    (left, right) => right[1].tableBytes + right[1].indexBytes - (left[1].tableBytes + left[1].indexBytes),
  );
  for (const [name, size] of largest) {
    if (size.tableBytes + size.indexBytes < MIB) continue;
    rows.push({
      section,
      figure: `  ${name} MiB (heap ${(size.tableBytes / MIB).toFixed(1)}, indexes ${(size.indexBytes / MIB).toFixed(1)}; ${size.liveRows.toLocaleString('en-US')} rows)`,
      value: Number(((size.tableBytes + size.indexBytes) / MIB).toFixed(1)),
    });
  }
  const perMillion = ordersSeeded > 0 ? (growthBytes / ordersSeeded) * 1_000_000 : null;
  rows.push(
    {
      section,
      figure: `disk MiB per million orders (service databases' growth over the seeding ÷ ${ordersSeeded.toLocaleString('en-US')} orders)`,
      value: perMillion === null ? null : Math.round(perMillion / MIB),
    },
    {
      section,
      figure: `disk GiB projected for ${ORDERS_PROJECTED.toLocaleString('en-US')} orders (linear)`,
      value: perMillion === null ? null : Number(((perMillion * (ORDERS_PROJECTED / 1_000_000)) / 2 ** 30).toFixed(1)),
    },
  );
  if (transfers) rows.push(transferDiskRow(transfers, section));
  return rows;
}

/** The disk a million transfers take: the databases' growth over the transfers' own seeding. */
function transferDiskRow({ growthBytes, count }, section) {
  return {
    section,
    figure: `disk MiB per million transfers (service databases' growth over the transfers' seeding ÷ ${count.toLocaleString('en-US')} transfers)`,
    value: count > 0 ? Math.round(((growthBytes / count) * 1_000_000) / MIB) : null,
  };
}

module.exports = {
  HISTORY_SIZES,
  HISTORY_SCALES,
  historyScale,
  historySizes,
  historyComparisonRows,
  seedingRows,
};
