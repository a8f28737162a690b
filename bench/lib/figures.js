// The performance targets ("must reach" and "aim" of the order-path performance work) and the
// one table every bench run prints: each figure beside its ceiling from the same run, the
// ratio, the targets and whether they are met. Pure (unit-tested).
'use strict';

/** One order read's latency budget: one client on an idle stack, p50 ms. */
const ORDER_READ_BUDGET = Object.freeze({ judged: 'value', must: ['<=', 4], aim: ['<=', 2] });

/**
 * Targets by figure id. `judged` says which number is compared: the figure itself or its
 * ratio to the ceiling printed beside it. [operator, limit]. Where the target table gives
 * none, a figure has no entry and prints without a verdict.
 */
const TARGETS = Object.freeze({
  'gateway.health.express': { judged: 'ratio', must: ['>=', 0.5], aim: ['>=', 0.7] },
  'gateway.order.express': { judged: 'ratio', must: ['>=', 0.25], aim: ['>=', 0.35] },
  'gateway.order.halfLoadP99': { judged: 'value', aim: ['<=', 20] },
  'gateway.quote.express': { judged: 'ratio', must: ['>=', 0.2], aim: ['>=', 0.3] },
  // A page a partner reconciles with (100 events, 100 statement lines) is served within the
  // budget of one order read: the same latency for one client on an idle stack. Its rate under
  // load is printed beside the read's, not judged: concurrent reads of one order share one
  // upstream call, pages of a moving feed cannot, so that ratio measures the sharing.
  'gateway.eventsPage': ORDER_READ_BUDGET,
  'gateway.statementPage': ORDER_READ_BUDGET,
  'orders.closedLoop': { judged: 'value', must: ['>=', 150], aim: ['>=', 250] },
  'orders.fixedRateP99': { judged: 'value', aim: ['<=', 150] },
  'sequential.health': { judged: 'value', must: ['<=', 2], aim: ['<=', 1] },
  'sequential.quote': { judged: 'value', must: ['<=', 5], aim: ['<=', 3] },
  'sequential.buy': { judged: 'value', must: ['<=', 15], aim: ['<=', 8] },
  'sequential.order': ORDER_READ_BUDGET,
  'cost.cpu.total': { judged: 'value', must: ['<=', 13], aim: ['<=', 8] },
  'cost.commits.total': { judged: 'value', must: ['<=', 12], aim: ['<=', 8] },
  // "The same at 0 and at 100,000 orders in the window": within 1.2×, the tolerance the
  // history bench uses for rows read per order.
  'volume.tradingRowsRead': { judged: 'ratio', must: ['<=', 1.2] },
  // The history bench's "within 15 % of the empty-database run".
  'volume.ordersPerSecond': { judged: 'ratio', must: ['>=', 0.85] },
  // The history bench (`--history`): every throughput and latency within 15 % of the same run
  // on an empty database, rows read per order per table within 1.2× of it.
  'history.throughput': { judged: 'ratio', must: ['>=', 0.85] },
  'history.latency': { judged: 'ratio', must: ['<=', 1.15] },
  'history.rowsRead': { judged: 'ratio', must: ['<=', 1.2] },
  'webhooks.oneWorker': { judged: 'value', must: ['>=', 500], aim: ['>=', 1000] },
  'webhooks.twoWorkers': { judged: 'ratio', aim: ['>=', 1.8] },
  'memory.idle': { judged: 'value', must: ['<=', 120] },
  'memory.peak': { judged: 'value', must: ['<=', 160] },
});

const OPERATORS = { '>=': (x, limit) => x >= limit, '<=': (x, limit) => x <= limit };
const SYMBOLS = { '>=': '≥', '<=': '≤' };

const isNumber = (value) => typeof value === 'number' && Number.isFinite(value);

/** value ÷ ceiling value when both are numbers and the ceiling is positive, else null. */
function ratioOf(row) {
  return isNumber(row.value) && isNumber(row.ceilingValue) && row.ceilingValue > 0
    ? row.value / row.ceilingValue
    : null;
}

function targetText(target, condition) {
  if (!target || !condition) return '';
  return `${target.judged === 'ratio' ? 'ratio ' : ''}${SYMBOLS[condition[0]]} ${condition[1]}`;
}

/**
 * '' without a target; otherwise whether the must-reach and the aim are met.
 * `invalid` (the figure cannot be trusted, e.g. failed requests) and `unmet` (it fails
 * whatever its value, e.g. a fixed rate not sustained) say why.
 */
function verdict(row, targets = TARGETS) {
  if (row.invalid) return `INVALID: ${row.invalid}`;
  const target = row.id ? targets[row.id] : undefined;
  if (!target) return '';
  const judged = target.judged === 'ratio' ? ratioOf(row) : row.value;
  if (!isNumber(judged)) return row.unmet ? `NOT MET: ${row.unmet}` : 'no value';
  if (row.unmet) return `NOT MET: ${row.unmet}`;
  const meets = (condition) => OPERATORS[condition[0]](judged, condition[1]);
  if (target.aim && meets(target.aim)) return target.must ? 'met, aim met' : 'aim met';
  if (target.must) return meets(target.must) ? (target.aim ? 'met, aim not' : 'met') : 'NOT MET';
  return 'aim not met';
}

/** A number as a table cell: thousands grouped from 1,000, otherwise up to 2 decimals. */
function formatNumber(value) {
  if (!isNumber(value)) return value === null || value === undefined ? '' : String(value);
  const magnitude = Math.abs(value);
  if (magnitude >= 1000) return Math.round(value).toLocaleString('en-US');
  if (magnitude >= 100 || Number.isInteger(value)) return value.toFixed(0);
  if (magnitude >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

const formatRatio = (ratio) => (ratio === null ? '' : ratio < 0.1 ? ratio.toFixed(3) : ratio.toFixed(2));

const HEADER = ['figure', 'value', 'ceiling (same run)', 'ceiling value', 'ratio', 'must reach', 'aim', 'verdict'];
const LEFT_ALIGNED = new Set([0, 2, 7]);

/** The cells of one row, in HEADER order. */
function rowCells(row, targets = TARGETS) {
  const target = row.id ? targets[row.id] : undefined;
  return [
    row.figure,
    formatNumber(row.value),
    row.ceiling ?? '',
    formatNumber(row.ceilingValue),
    formatRatio(ratioOf(row)),
    targetText(target, target?.must),
    targetText(target, target?.aim),
    verdict(row, targets),
  ];
}

/** The whole table as text; a row's `section` starts a titled group. */
function formatTable(rows, targets = TARGETS) {
  const cells = rows.map((row) => rowCells(row, targets));
  const widths = HEADER.map((title, column) => Math.max(title.length, ...cells.map((row) => row[column].length)));
  const line = (row) =>
    row
      .map((cell, column) => (LEFT_ALIGNED.has(column) ? cell.padEnd(widths[column]) : cell.padStart(widths[column])))
      .join('  ')
      .trimEnd();
  const out = [line(HEADER), widths.map((width) => '-'.repeat(width)).join('  ')];
  let section = null;
  rows.forEach((row, index) => {
    if (row.section && row.section !== section) {
      section = row.section;
      out.push(`[${section}]`);
    }
    out.push(line(cells[index]));
  });
  return out.join('\n');
}

/** How many rows with a must-reach met it, missed it, or could not be judged. */
function tally(rows, targets = TARGETS) {
  const counts = { met: 0, notMet: 0, unjudged: 0 };
  for (const row of rows) {
    const target = row.id ? targets[row.id] : undefined;
    if (!target?.must) continue;
    const result = verdict(row, targets);
    if (result.startsWith('met')) counts.met += 1;
    else if (result.startsWith('NOT MET')) counts.notMet += 1;
    else counts.unjudged += 1;
  }
  return counts;
}

module.exports = { TARGETS, ratioOf, verdict, formatNumber, formatTable, rowCells, tally };
