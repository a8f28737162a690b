// One client in sequence on an otherwise idle stack: signed GET /v1/health, POST /v1/quotes,
// POST /v1/orders/buy (with that quote) and GET /v1/orders/{id} (that order), one after the
// other, p50 and p99 of each. Ceiling: the same client's signed GET against a bare node:http
// hello-world, so the client's own cost is visible beside the stack's.
import { randomUUID } from 'node:crypto';
import { step } from '../../scripts/lib/steps.mjs';
import { withCeiling } from '../lib/ceilings.mjs';
import { keepAliveAgent, PartnerClient } from '../lib/http.mjs';
import { failureText } from '../lib/load.mjs';
import { ORDER_KES } from '../lib/partners.mjs';
import { summarise } from '../lib/stats.js';

const SECTION = 'one client in sequence, idle stack';
/** Rounds run first and not counted: connections opened, code paths warmed. */
const WARMUP_ROUNDS = 20;
/** A round is four requests; at most this long for all rounds together. */
const ROUNDS_TIME_LIMIT_MS = 90_000;

const elapsedMs = (startedAt) => Number(process.hrtime.bigint() - startedAt) / 1e6;

async function timed(latencies, name, call, expected) {
  const startedAt = process.hrtime.bigint();
  const answer = await call();
  latencies[name].push(elapsedMs(startedAt));
  if (answer.status !== expected) throw new Error(`${name}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

async function round(client, latencies) {
  await timed(latencies, 'health', () => client.get('/v1/health'), 200);
  const quote = await timed(
    latencies,
    'quote',
    () => client.post('/v1/quotes', { side: 'buy', kesAmount: ORDER_KES }),
    201,
  );
  const order = await timed(
    latencies,
    'buy',
    () => client.post('/v1/orders/buy', { quoteId: quote.quoteId, partnerReference: randomUUID() }),
    202,
  );
  await timed(latencies, 'order', () => client.get(`/v1/orders/${order.orderId}`), 200);
  return order.orderId;
}

async function rounds(ctx, client, count, record) {
  const latencies = { health: [], quote: [], buy: [], order: [] };
  const failures = {};
  const deadline = Date.now() + ROUNDS_TIME_LIMIT_MS;
  let done = 0;
  while (done < count && Date.now() < deadline) {
    try {
      ctx.placedOrderIds.push(await round(client, latencies));
    } catch (error) {
      failures[error.message] = (failures[error.message] ?? 0) + 1;
    }
    done += 1;
  }
  return record ? { rounds: done, failures, latencies } : null;
}

/** The client's own floor: its signed GET answered by a bare node:http, one at a time. */
async function ceilingLatency(credentials, count) {
  return withCeiling('node:http', async (url) => {
    const client = new PartnerClient(url, credentials, keepAliveAgent(1));
    const latencies = [];
    for (let index = 0; index < WARMUP_ROUNDS + count; index += 1) {
      const startedAt = process.hrtime.bigint();
      await client.get('/v1/health');
      if (index >= WARMUP_ROUNDS) latencies.push(elapsedMs(startedAt));
    }
    client.agent.destroy();
    return summarise(latencies);
  });
}

export async function sequentialSection(ctx) {
  const count = ctx.options.sequentialRounds;
  const partner = await ctx.newPartner('Bench sequential', { sockets: 1 });
  const ceiling = await step(`ceiling: node:http hello-world, one client, ${count} requests`, () =>
    ceilingLatency(partner.credentials, count),
  );
  await step(`warm-up: ${WARMUP_ROUNDS} rounds`, () => rounds(ctx, partner.client, WARMUP_ROUNDS, false));
  const measured = await step(`one client: ${count} rounds of health, quote, buy, get order`, () =>
    rounds(ctx, partner.client, count, true),
  );
  const summaries = Object.fromEntries(
    Object.entries(measured.latencies).map(([name, values]) => [name, summarise(values)]),
  );
  const failed = failureText(measured.failures);
  const names = {
    health: 'signed GET /v1/health',
    quote: 'signed POST /v1/quotes',
    buy: 'signed POST /v1/orders/buy',
    order: 'signed GET /v1/orders/{id}',
  };
  for (const [name, label] of Object.entries(names)) {
    ctx.rows.push({
      section: SECTION,
      id: `sequential.${name}`,
      figure: `${label} p50 ms (p99 ${summaries[name].p99Ms}, ${summaries[name].count} requests)`,
      value: summaries[name].p50Ms,
      ceiling: `node:http hello-world p50 ms, same client (p99 ${ceiling.p99Ms})`,
      ceilingValue: ceiling.p50Ms,
      invalid: failed ? `failed: ${failed}` : undefined,
    });
  }
  return {
    rounds: measured.rounds,
    failures: measured.failures,
    latency: summaries,
    ceiling,
    partnerId: partner.partnerId,
  };
}
