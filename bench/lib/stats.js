// Latency summaries and pgbench's output, as pure functions (unit-tested).
'use strict';

/** Nearest-rank percentile of an ascending array (fraction 0..1); null when empty. */
function percentile(sorted, fraction) {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil(fraction * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1];
}

const round1 = (value) => (value === null ? null : Number(value.toFixed(1)));

/** count, p50, p95, p99 and max (ms, one decimal) of latencies in any order. */
function summarise(latenciesMs) {
  const sorted = [...latenciesMs].sort((left, right) => left - right);
  return {
    count: sorted.length,
    p50Ms: round1(percentile(sorted, 0.5)),
    p95Ms: round1(percentile(sorted, 0.95)),
    p99Ms: round1(percentile(sorted, 0.99)),
    maxMs: round1(sorted.length ? sorted[sorted.length - 1] : null),
  };
}

/** tps (without the initial connection time) and latency average from pgbench's report. */
function parsePgbench(output) {
  const tps = output.match(/tps = ([0-9.]+) \(without initial connection time\)/);
  if (!tps) throw new Error(`pgbench printed no tps: ${output.slice(-500)}`);
  const latency = output.match(/latency average = ([0-9.]+) ms/);
  return { tps: Number(Number(tps[1]).toFixed(1)), latencyAverageMs: latency ? Number(latency[1]) : null };
}

/** Failures ({ what: count }) as one short text, or '' when none. */
function failureText(failures) {
  const entries = Object.entries(failures ?? {});
  return entries.length === 0 ? '' : entries.map(([what, count]) => `${count} × ${what}`).join(', ');
}

/**
 * Why an autocannon load's figure cannot be trusted, or undefined: its answers that were not
 * 2xx, by status (a refusal such as 429 is cheap and would inflate the rate), and its errors.
 */
function loadInvalid(figure) {
  if (figure.non2xx === 0 && figure.errors === 0) return undefined;
  const refused = Object.fromEntries(
    Object.entries(figure.statusCodes ?? {}).filter(([status]) => !status.startsWith('2')),
  );
  const byStatus = failureText(refused);
  return `${figure.non2xx} non-2xx${byStatus ? ` (${byStatus})` : ''}, ${figure.errors} errors`;
}

module.exports = { percentile, summarise, parsePgbench, failureText, loadInvalid };
