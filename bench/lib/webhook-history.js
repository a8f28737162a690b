// The webhook rows' history: finished deliveries seeded into webhook-delivery's fresh database
// before the burst of bench/webhook-delivery.mjs, and the rows that print a seeded run beside
// an empty one. Pure (unit-tested): the SQL is built here, the bench runs it.
//
// Seeded rows look like the ones the bench's own burst leaves behind: a `credit.received`
// envelope of the same shape and size (about 240 bytes), delivered at the first attempt (one
// attempt, 200, "ok"), numbered in the events feed in creation order. They go in through the
// partitioned parents, so each lands where the service's own would: in its week, or in the
// range below the first week (on a freshly migrated database, everything before this week).
'use strict';

const { boundedInt } = require('./options');
const { WINDOW_MARGIN_MS } = require('./retention-window');

/** Deliveries (and as many attempts) per statement, each its own transaction. */
const CHUNK_DELIVERIES = 50_000;
const DELIVERIES_MAX = 20_000_000;
const PARTNERS_MAX = 1_000_000;
const PARTNERS_DEFAULT = 10_000;
/** What the seeded attempt took, and when the delivery was marked delivered after its creation. */
const ATTEMPT_LATENCY_MS = 100;
const DELIVERED_AFTER_MS = 2_000;
/** Tables read less than this per delivery in both runs are left out of the printed table (kept in the JSON). */
const ROWS_PER_DELIVERY_SHOWN_MIN = 0.5;

const ENV = Object.freeze({
  deliveries: 'BENCH_WEBHOOK_HISTORY_DELIVERIES',
  partners: 'BENCH_WEBHOOK_HISTORY_PARTNERS',
});

/** { deliveries, partners } to seed, or null (no history: the plain bench) when deliveries is unset or 0. */
function webhookHistoryOptions(env) {
  const deliveries = boundedInt(env, ENV.deliveries, 0, 0, DELIVERIES_MAX);
  const partners = boundedInt(env, ENV.partners, PARTNERS_DEFAULT, 1, PARTNERS_MAX);
  return deliveries === 0 ? null : { deliveries, partners };
}

/** The child bench's environment for a history of `deliveries` over `partners` (0: none). */
function webhookHistoryEnv({ deliveries, partners }) {
  return { [ENV.deliveries]: String(deliveries), [ENV.partners]: String(partners) };
}

/** [{ first, count }] covering 0..deliveries−1 in chunks of at most `size`. */
function historyChunks(deliveries, size = CHUNK_DELIVERIES) {
  if (!Number.isInteger(size) || size < 1) throw new Error(`chunk size must be a positive integer, got ${size}`);
  const chunks = [];
  for (let first = 0; first < deliveries; first += size)
    chunks.push({ first, count: Math.min(size, deliveries - first) });
  return chunks;
}

/**
 * When the seeded deliveries were created: evenly from (window − margin) ago up to just before
 * `nowMs`, the i-th at startMs + i × stepMs, so none is past the window when the bench runs.
 */
function historySpan({ nowMs, windowMs, deliveries }) {
  const spanMs = windowMs - WINDOW_MARGIN_MS;
  if (spanMs <= 0) throw new Error(`a delivery window of ${windowMs} ms leaves no room inside its margin`);
  return { startMs: nowMs - spanMs, stepMs: spanMs / deliveries };
}

// $1 first index, $2 count, $3 partners, $4 start (epoch ms), $5 step (ms), $6 feed position
// below the first, $7 endpoint URL prefix, $8 the measured partners (the first partners of the
// history; the others get ids of their own). One delivery and one attempt per index.
const SEED_DELIVERIES_SQL = `
  WITH s AS (
    SELECT i, to_timestamp(($4::float8 + i * $5::float8) / 1000.0) AS created_at,
           gen_random_uuid() AS delivery_id, gen_random_uuid() AS event_id,
           coalesce(($8::uuid[])[(i % $3) + 1], md5('bench-history-partner-' || (i % $3))::uuid) AS partner_id,
           $7::text || (i % $3) AS endpoint_url
      FROM generate_series($1::bigint, $1::bigint + $2::bigint - 1) AS i
  ), d AS (
    INSERT INTO webhook_deliveries (delivery_id, event_id, partner_id, event_type, body, endpoint_url, status,
                                    attempt_count, last_status_code, last_latency_ms, created_at, delivered_at, feed_position)
    SELECT delivery_id, event_id, partner_id, 'credit.received',
           '{"id":"' || event_id || '","type":"credit.received","createdAt":"'
             || to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
             || '","data":{"transactionId":"' || gen_random_uuid()
             || '","amount":{"currency":"KES","value":"100.00"},"reference":"BENCH"}}',
           endpoint_url, 'delivered', 1, 200, ${ATTEMPT_LATENCY_MS}, created_at,
           created_at + interval '${DELIVERED_AFTER_MS} milliseconds', $6::bigint + i + 1
      FROM s ORDER BY i
    RETURNING delivery_id, created_at, delivered_at
  )
  INSERT INTO webhook_delivery_attempts (id, delivery_id, delivery_created_at, attempt_number, started_at, latency_ms,
                                         status_code, response_excerpt, round)
  SELECT gen_random_uuid(), delivery_id, created_at, 1, delivered_at - interval '${ATTEMPT_LATENCY_MS} milliseconds',
         ${ATTEMPT_LATENCY_MS}, 200, 'ok', 0
    FROM d`;

// The endpoints of the history's other partners, with the sealed secret of a measured one
// ($3): their deliveries are over, so no replica ever opens it. $1 partners, $2 URL prefix,
// $4 how many measured partners (already with an endpoint) come first.
const SEED_ENDPOINTS_SQL = `
  INSERT INTO endpoints (partner_id, url, secret_sealed)
  SELECT md5('bench-history-partner-' || p)::uuid, $2::text || p,
         (SELECT secret_sealed FROM endpoints WHERE partner_id = $3::uuid)
    FROM generate_series($4::int, $1::int - 1) AS p`;

/** Rows read (sequentially + by index) per delivery for every table of `tables` (a counter difference). */
function rowsReadPerDelivery(tables, deliveries) {
  return Object.fromEntries(
    Object.entries(tables)
      .filter(([, counters]) => counters.rowsRead > 0)
      .map(([table, counters]) => [table, counters.rowsRead / deliveries]),
  );
}

const ceiling = (what) => `${what}, empty database`;

/** One worker count's deliveries/s and publish→ack p50 / p99, seeded beside empty. */
function workerRows({ seeded, empty, label, section }) {
  const workers = seeded.workers === 1 ? 'one worker' : `${seeded.workers} workers`;
  return [
    {
      section,
      id: 'history.throughput',
      figure: `webhook deliveries/s, ${workers}, with ${label}`,
      value: Math.round(seeded.deliveriesPerSecond),
      ceiling: ceiling('deliveries/s'),
      ceilingValue: Math.round(empty.deliveriesPerSecond),
    },
    ...['p50Ms', 'p99Ms'].map((key) => ({
      section,
      id: 'history.latency',
      figure: `  webhook publish→ack ${key.slice(0, 3)} ms, ${workers}`,
      value: Number(seeded[key].toFixed(1)),
      ceiling: ceiling('the same'),
      ceilingValue: Number(empty[key].toFixed(1)),
    })),
    {
      section,
      figure: `  PostgreSQL commits per delivery, ${workers}`,
      value: Number(seeded.commitsPerDelivery.toFixed(2)),
      ceiling: ceiling('the same'),
      ceilingValue: Number(empty.commitsPerDelivery.toFixed(2)),
    },
  ];
}

/**
 * Rows read per delivery per table over the burst, beside the empty run's, judged ≤ 1.2× it
 * ('history.rowsRead'); a table read only with history (the range below the first week, say)
 * fails outright.
 */
function rowsReadRows({ seeded, empty, section }) {
  const workers = seeded.workers === 1 ? 'one worker' : `${seeded.workers} workers`;
  const seededTables = seeded.rowsReadPerDelivery ?? {};
  const emptyTables = empty.rowsReadPerDelivery ?? {};
  const rows = [];
  for (const table of [...new Set([...Object.keys(seededTables), ...Object.keys(emptyTables)])].sort()) {
    const value = seededTables[table] ?? 0;
    const before = emptyTables[table] ?? 0;
    if (Math.max(value, before) < ROWS_PER_DELIVERY_SHOWN_MIN) continue;
    rows.push({
      section,
      id: 'history.rowsRead',
      unmet: before < ROWS_PER_DELIVERY_SHOWN_MIN ? 'read only with history' : undefined,
      figure: `  rows read per delivery svc_webhook_delivery.${table}, ${workers}`,
      value: Number(value.toFixed(2)),
      ceiling: ceiling('the same'),
      ceilingValue: Number(before.toFixed(2)),
    });
  }
  return rows;
}

/**
 * The webhook rows of a seeded run beside the empty one, per worker count both ran: each run
 * is the child bench's JSON ({ results: [{ workers, deliveriesPerSecond, p50Ms, p99Ms,
 * commitsPerDelivery, rowsReadPerDelivery }] }).
 */
function webhookHistoryRows({ seeded, empty, label, section }) {
  const emptyByWorkers = new Map(empty.results.map((run) => [run.workers, run]));
  const rows = [];
  for (const run of seeded.results) {
    const before = emptyByWorkers.get(run.workers);
    if (!before) {
      rows.push({
        section,
        figure: `webhook rows, ${run.workers} workers: no empty run`,
        value: null,
        invalid: 'not measured on the empty database',
      });
      continue;
    }
    rows.push(...workerRows({ seeded: run, empty: before, label, section }));
    rows.push(...rowsReadRows({ seeded: run, empty: before, section }));
  }
  return rows;
}

module.exports = {
  CHUNK_DELIVERIES,
  SEED_DELIVERIES_SQL,
  SEED_ENDPOINTS_SQL,
  WINDOW_MARGIN_MS,
  historyChunks,
  historySpan,
  rowsReadPerDelivery,
  webhookHistoryEnv,
  webhookHistoryOptions,
  webhookHistoryRows,
};
