#!/usr/bin/env node
// `npm run bench:orders`: the order path through the gateway, quote + debit-first buy order
// per second with p50/p95/p99, against pgbench (tpcb-like) on the same PostgreSQL as the
// ceiling, same number of clients, same duration. Closed loop: clients each
// signs and sends POST /v1/quotes then POST /v1/orders/buy (fresh partnerReference), back to
// back, until the duration ends. One partner with a raised rate limit, a large daily cap and a
// funded KES balance (sandbox kes-credits). Orders settle in the background meanwhile (the
// scheduler's ledger postings are part of the load, as in production).
// Prints a table and writes JSON to bench/results/ (git-ignored). Never part of `npm test`.
//
//   BENCH_STACK_FILE=.stack-test-9/stack.json npm run bench:orders   against a started stack
//                                  (`npm run bench` passes its own; `BENCH_SECTIONS=orders npm run bench`)
//   BENCH_DURATION_S=10 BENCH_ORDER_CLIENTS=16                         seconds per figure, clients
// Two figures: every client ordering for ONE partner (the per-partner path: the daily cap
// locks the partner's profile row and the hold its KES account, so a partner's orders queue),
// and the clients spread over 8 partners (what the platform does across partners).
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { POSTGRES_BIN_DIR } from '../scripts/lib/postgres.mjs';

const require = createRequire(import.meta.url);
const { signedRequestHeaders } = require('@platform/crypto');
const { Client } = require('pg');

const DURATION_S_DEFAULT = 10;
const DURATION_S_MAX = 300;
const CONCURRENCY_DEFAULT = 16;
const CONCURRENCY_MAX = 256;
/** The order path is measured for one partner (every order serialises on its cap and balance) and spread over several. */
const SPREAD_PARTNERS = 8;
const RATE_LIMIT_PER_MINUTE = 100_000;
const DAILY_CAP_KES = '100000000.00';
const PER_ORDER_CAP_KES = '1000000.00';
/** Covers 99,000 orders of ORDER_KES plus fees: far more than any bounded run places. */
const FUNDING_KES = '10000000.00';
const ORDER_KES = '100.00';
const BID = '128.0000';
const ASK = '130.0000';
const OPS_TIMEOUT_MS = 60_000;
const REQUEST_TIMEOUT_MS = 30_000;
const PGBENCH_DATABASE = 'bench_pgbench';
/** pgbench scale: 10 branches, so 16 clients do not all queue on one branch row. */
const PGBENCH_SCALE = 10;
const PGBENCH_THREADS = 2;
const PGBENCH_TIMEOUT_MS = (DURATION_S_MAX + 120) * 1000;
const PGBENCH = path.join(POSTGRES_BIN_DIR, 'pgbench');

function boundedInt(name, fallback, max) {
  const raw = process.env[name];
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > max) throw new Error(`${name} must be an integer 1..${max}`);
  return value;
}

const durationS = boundedInt('BENCH_DURATION_S', DURATION_S_DEFAULT, DURATION_S_MAX);
const concurrency = boundedInt('BENCH_ORDER_CLIENTS', CONCURRENCY_DEFAULT, CONCURRENCY_MAX);

function runOps(stackFile, args) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'tools/ops/dist/main.js'), ...args, '--json'], {
      env: { ...process.env, OPS_STACK_FILE: stackFile }, timeout: OPS_TIMEOUT_MS,
    }, (error, stdout, stderr) => (error ? reject(new Error(`ops ${args[0]}: ${stderr || error.message}`)) : resolve(JSON.parse(stdout))));
  });
}

/** A signed JSON POST, as a partner sends it (own nonce and timestamp each). */
async function post(gatewayUrl, credentials, pathAndQuery, body) {
  const text = JSON.stringify(body);
  const headers = { ...signedRequestHeaders(credentials, { method: 'POST', pathAndQuery, body: text }), 'Content-Type': 'application/json' };
  const response = await fetch(`${gatewayUrl}${pathAndQuery}`, { method: 'POST', headers, body: text, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  const answer = await response.text();
  return { status: response.status, body: answer ? JSON.parse(answer) : undefined };
}

async function benchPartner(stackFile, gatewayUrl) {
  const partner = await runOps(stackFile, ['partner', 'create', '--name', 'Bench orders', '--admin-domain', 'bench.example.com',
    '--rate-limit-per-minute', String(RATE_LIMIT_PER_MINUTE), '--daily-cap-kes', DAILY_CAP_KES, '--per-order-cap-kes', PER_ORDER_CAP_KES]);
  const credentials = { apiKey: partner.apiKey, signingSecret: partner.signingSecret };
  for (const [pathAndQuery, body, status] of [['/v1/sandbox/rates', { bid: BID, ask: ASK }, 200], ['/v1/sandbox/kes-credits', { amount: FUNDING_KES }, 201]]) {
    const answer = await post(gatewayUrl, credentials, pathAndQuery, body);
    if (answer.status !== status) throw new Error(`${pathAndQuery}: ${answer.status} ${JSON.stringify(answer.body)}`);
  }
  return credentials;
}

function percentile(sorted, fraction) {
  return sorted.length === 0 ? null : Number(sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))].toFixed(1));
}

function latencySummary(latencies) {
  const sorted = [...latencies].sort((a, b) => a - b);
  return { p50Ms: percentile(sorted, 0.5), p95Ms: percentile(sorted, 0.95), p99Ms: percentile(sorted, 0.99) };
}

const elapsedMs = (begun) => Number(process.hrtime.bigint() - begun) / 1e6;

/** Closed loop: `concurrency` workers (worker i orders for partner i mod n), quote then buy, until the duration ends. */
async function driveOrders(gatewayUrl, partners) {
  const total = [];
  const quotes = [];
  const orders = [];
  const failures = {};
  const deadline = Date.now() + durationS * 1000;
  const startedAt = process.hrtime.bigint();
  const fail = (what) => { failures[what] = (failures[what] ?? 0) + 1; };
  const worker = async (index) => {
    const credentials = partners[index % partners.length];
    while (Date.now() < deadline) {
      const begun = process.hrtime.bigint();
      try {
        const quote = await post(gatewayUrl, credentials, '/v1/quotes', { side: 'buy', kesAmount: ORDER_KES });
        quotes.push(elapsedMs(begun));
        if (quote.status !== 201) { fail(`quote ${quote.status} ${quote.body?.message}`); continue; }
        const orderBegun = process.hrtime.bigint();
        const order = await post(gatewayUrl, credentials, '/v1/orders/buy', { quoteId: quote.body.quoteId, partnerReference: randomUUID() });
        orders.push(elapsedMs(orderBegun));
        if (order.status !== 202) { fail(`order ${order.status} ${order.body?.message}`); continue; }
        total.push(elapsedMs(begun));
      } catch (error) {
        fail(`transport ${error.message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, index) => worker(index)));
  const wallMs = elapsedMs(startedAt);
  return {
    partners: partners.length,
    ordersPerSecond: Number(((total.length / wallMs) * 1000).toFixed(1)),
    orders: total.length,
    ...latencySummary(total),
    quoteLatency: latencySummary(quotes),
    orderLatency: latencySummary(orders),
    failures,
  };
}

function psql(urlTemplate, database) {
  return new Client({ connectionString: urlTemplate.replace('{database}', database) });
}

async function ensurePgbenchDatabase(urlTemplate) {
  const client = psql(urlTemplate, 'postgres');
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${PGBENCH_DATABASE}`);
    await client.query(`CREATE DATABASE ${PGBENCH_DATABASE}`);
  } finally {
    await client.end();
  }
}

function runPgbench(args) {
  return new Promise((resolve, reject) => {
    execFile(PGBENCH, args, { timeout: PGBENCH_TIMEOUT_MS }, (error, stdout, stderr) => (error ? reject(new Error(`pgbench: ${stderr || error.message}`)) : resolve(stdout)));
  });
}

/** tpcb-like pgbench with the same clients and duration, on the stack's own PostgreSQL. */
async function pgbenchCeiling(urlTemplate) {
  if (!existsSync(PGBENCH)) throw new Error(`${PGBENCH} is missing: it ships with Debian's postgresql-15 (scripts/lib/infra.mjs installs postgresql)`);
  await ensurePgbenchDatabase(urlTemplate);
  const url = urlTemplate.replace('{database}', PGBENCH_DATABASE);
  await runPgbench(['-i', '-q', '-s', String(PGBENCH_SCALE), url]);
  const output = await runPgbench(['-c', String(concurrency), '-j', String(PGBENCH_THREADS), '-T', String(durationS), '-M', 'prepared', '--no-vacuum', url]);
  const tps = output.match(/tps = ([0-9.]+) \(without initial connection time\)/);
  const latency = output.match(/latency average = ([0-9.]+) ms/);
  if (!tps) throw new Error(`pgbench printed no tps: ${output}`);
  const client = psql(urlTemplate, 'postgres');
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS ${PGBENCH_DATABASE}`).finally(() => client.end());
  return { tps: Number(Number(tps[1]).toFixed(1)), latencyAverageMs: latency ? Number(latency[1]) : null, scale: PGBENCH_SCALE, clients: concurrency, script: 'tpcb-like' };
}

function printTable(result) {
  const { pgbench: p } = result;
  console.log('');
  for (const o of result.orderPaths) {
    console.log(`order path (quote + buy), ${concurrency} clients, ${o.partners} partner(s), ${durationS} s: ${o.ordersPerSecond} orders/s (${o.orders} orders), `
      + `p50 / p95 / p99 ${o.p50Ms} / ${o.p95Ms} / ${o.p99Ms} ms; failures ${JSON.stringify(o.failures)}`);
    console.log(`  quote p50 / p99 ${o.quoteLatency.p50Ms} / ${o.quoteLatency.p99Ms} ms; order p50 / p99 ${o.orderLatency.p50Ms} / ${o.orderLatency.p99Ms} ms; ratio to pgbench ${o.ratio}`);
  }
  console.log(`pgbench tpcb-like, scale ${p.scale}, ${p.clients} clients: ${p.tps} tps (latency average ${p.latencyAverageMs} ms)`);
}

async function main() {
  const stackFile = process.env.BENCH_STACK_FILE;
  if (!stackFile || !existsSync(stackFile)) throw new Error('BENCH_STACK_FILE must name a started stack (or run `BENCH_SECTIONS=orders npm run bench`)');
  const stack = JSON.parse(readFileSync(stackFile, 'utf8'));
  if (!stack.postgres?.urlTemplate) throw new Error(`${stackFile} has no postgres.urlTemplate`);
  const partners = [];
  for (let index = 0; index < SPREAD_PARTNERS; index += 1) partners.push(await benchPartner(stackFile, stack.gatewayUrl));
  const orderPaths = [];
  for (const spread of [partners.slice(0, 1), partners]) {
    console.log(`▶ order path: quote + buy, ${concurrency} clients, ${spread.length} partner(s), ${durationS} s`);
    orderPaths.push(await driveOrders(stack.gatewayUrl, spread));
  }
  console.log(`▶ pgbench ceiling on the same PostgreSQL`);
  const pgbench = await pgbenchCeiling(stack.postgres.urlTemplate);
  for (const orderPath of orderPaths) orderPath.ratio = Number((orderPath.ordersPerSecond / pgbench.tps).toFixed(3));
  const result = {
    ranAt: new Date().toISOString(), durationS, concurrency, orderKes: ORDER_KES, orderPaths, pgbench,
    note: 'orders/s = quote + buy answered 201 then 202, closed loop; ceiling = pgbench tpcb-like transactions/s, same clients and duration',
  };
  printTable(result);
  const folder = path.join(path.dirname(new URL(import.meta.url).pathname), 'results');
  mkdirSync(folder, { recursive: true });
  const file = path.join(folder, `orders-${result.ranAt.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`\nwritten ${path.relative(process.cwd(), file)}`);
}

main().catch((error) => {
  console.error(`✘ ${error.stack ?? error.message}`);
  process.exitCode = 1;
});
