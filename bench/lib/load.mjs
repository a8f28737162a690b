// The order path as partners drive it: quote, then debit-first buy with a fresh
// partnerReference. Closed loop (N clients back to back) and fixed rate (orders started on
// a timetable whatever the answers, latency counted from the planned start).
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { sleep } from '../../scripts/lib/processes.mjs';
import { summarise } from './stats.js';

export { failureText } from './stats.js';
import { ORDER_KES } from './partners.mjs';

const require = createRequire(import.meta.url);
const { Client } = require('pg');

const elapsedMs = (startedAt) => Number(process.hrtime.bigint() - startedAt) / 1e6;

/** One quote + buy; resolves to { orderId, quoteMs, buyMs } or { failure } (never rejects). */
export async function quoteAndBuy(client) {
  const startedAt = process.hrtime.bigint();
  try {
    const quote = await client.post('/v1/quotes', { side: 'buy', kesAmount: ORDER_KES });
    const quoteMs = elapsedMs(startedAt);
    if (quote.status !== 201) return { failure: `quote ${quote.status} ${quote.body?.code ?? ''}`.trim() };
    const buyStartedAt = process.hrtime.bigint();
    const order = await client.post('/v1/orders/buy', { quoteId: quote.body.quoteId, partnerReference: randomUUID() });
    const buyMs = elapsedMs(buyStartedAt);
    if (order.status !== 202) return { failure: `buy ${order.status} ${order.body?.code ?? ''}`.trim() };
    return { orderId: order.body.orderId, quoteMs, buyMs };
  } catch (error) {
    return { failure: `transport ${error.message}` };
  }
}

function tallyFailure(failures, failure) {
  failures[failure] = (failures[failure] ?? 0) + 1;
}

/**
 * `workers` clients back to back for durationMs, worker i ordering for partners[i mod n].
 * Resolves to { orderIds, ordersPerSecond, latency (quote + buy), quote, buy, failures }.
 */
export async function closedLoop({ partners, workers, durationMs }) {
  const orderIds = [];
  const total = [];
  const quotes = [];
  const buys = [];
  const failures = {};
  const deadline = Date.now() + durationMs;
  const startedAt = process.hrtime.bigint();
  const worker = async (index) => {
    const { client } = partners[index % partners.length];
    while (Date.now() < deadline) {
      const result = await quoteAndBuy(client);
      if (result.failure) {
        tallyFailure(failures, result.failure);
        continue;
      }
      orderIds.push(result.orderId);
      quotes.push(result.quoteMs);
      buys.push(result.buyMs);
      total.push(result.quoteMs + result.buyMs);
    }
  };
  await Promise.all(Array.from({ length: workers }, (_, index) => worker(index)));
  const wallMs = elapsedMs(startedAt);
  return {
    workers,
    partners: partners.length,
    durationMs,
    wallMs: Math.round(wallMs),
    orders: orderIds.length,
    ordersPerSecond: Number(((orderIds.length / wallMs) * 1000).toFixed(1)),
    latency: summarise(total),
    quote: summarise(quotes),
    buy: summarise(buys),
    failures,
    orderIds,
  };
}

/**
 * Starts a quote + buy every 1/rate s for durationMs. With inFlightMax orders unanswered a
 * planned start is skipped and counted (the stack cannot keep up: it is not hidden by
 * waiting). Latency runs from the planned start, so a late start counts against it.
 */
export async function fixedRate({ partner, ratePerSecond, durationMs, inFlightMax }) {
  const intervalMs = 1000 / ratePerSecond;
  const planned = Math.floor((durationMs / 1000) * ratePerSecond);
  const latencies = [];
  const orderIds = [];
  const failures = {};
  const pending = new Set();
  let skipped = 0;
  const origin = performance.now();
  for (let index = 0; index < planned; index += 1) {
    const plannedAt = origin + index * intervalMs;
    const wait = plannedAt - performance.now();
    if (wait > 0) await sleep(wait);
    if (pending.size >= inFlightMax) {
      skipped += 1;
      continue;
    }
    const order = quoteAndBuy(partner.client).then((result) => {
      if (result.failure) tallyFailure(failures, result.failure);
      else {
        orderIds.push(result.orderId);
        latencies.push(performance.now() - plannedAt);
      }
    });
    pending.add(order);
    order.finally(() => pending.delete(order));
  }
  await Promise.all(pending);
  const wallMs = performance.now() - origin;
  return {
    ratePerSecond,
    durationMs,
    planned,
    skipped,
    inFlightMax,
    orders: orderIds.length,
    achievedPerSecond: Number(((orderIds.length / wallMs) * 1000).toFixed(1)),
    latency: summarise(latencies),
    failures,
    orderIds,
  };
}

/**
 * The ids of the orders `partnerId` created since `sinceMs`, from trading's own table: a
 * create answered 503 (a deadline passed) may still have made its order, whose work then
 * belongs to the measurement.
 */
export async function ordersCreatedSince(urlTemplate, partnerId, sinceMs) {
  const client = new Client({ connectionString: urlTemplate.replace('{database}', 'svc_trading') });
  await client.connect();
  try {
    const { rows } = await client.query(
      'SELECT order_id::text AS id FROM orders WHERE partner_id = $1 AND created_at >= to_timestamp($2 / 1000.0)',
      [partnerId, sinceMs],
    );
    return rows.map((row) => row.id);
  } finally {
    await client.end();
  }
}
