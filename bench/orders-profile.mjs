#!/usr/bin/env node
// Where trading's share of an order goes: starts a test-profile stack in slot BENCH_STACK_SLOT
// (or uses BENCH_STACK_FILE's), gives a bench partner a warm-up, then runs the orders section's
// closed loop (quote + debit-first buy, BENCH_ORDER_CLIENTS clients, BENCH_ORDER_DURATION_S s)
// and waits for every order's settlement and final webhook. Two modes:
//
//   BENCH_STACK_SLOT=2 node bench/orders-profile.mjs
//     cost (the default): CPU ms per order of every stack process from /proc and commits per
//     order per database (bench/lib/cost.mjs, the bench's own measurement, robust to a busy
//     machine), and each statement per order of the databases in BENCH_STATEMENTS_DATABASES
//     (default svc_trading,svc_ledger,svc_webhook_delivery) from pg_stat_statements: calls,
//     execution and planning time, rows (the idle background's statements, measured just
//     before over as long, taken off). BENCH_ROUNDS rounds, each printed.
//     BENCH_ORDER_CLIENTS may list several counts (1,20): the rounds run for each in turn. While
//     the statements are measured, pg_stat_activity is sampled every BENCH_WAIT_SAMPLE_MS (default
//     50) for the same databases: per statement, how many samples found a backend running it and
//     how many found it waiting on a lock, by wait event (transactionid or tuple: a row another
//     transaction holds; advisory), the queue behind a partner's serialised rows.
//   BENCH_ORDERS_MODE=profile BENCH_STACK_SLOT=2 node bench/orders-profile.mjs   (or cost,profile: both, profile last)
//     the services in BENCH_PROFILED_SERVICES (default trading; e.g. ledger,webhook-delivery)
//     replaced by instances under `node --cpu-prof` during the same load; each profile lands in
//     bench/results/cpu-orders-<service>/ and its top self time is printed
//     (bench/cpu-profile-top.mjs). An extra run for looking: the profiler costs CPU of its own.
//
// pg_stat_statements must be loaded by the stack's PostgreSQL and readable by the stack's user
// (neither is so by default). Once per slot's cluster, as its superuser (`runuser -u postgres --
// psql -h .stack-test-N/pg/run -p <port> -d postgres`):
//   ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements';   -- then restart the cluster
//   ALTER SYSTEM SET pg_stat_statements.track_planning = on; SELECT pg_reload_conf();
//   CREATE EXTENSION pg_stat_statements; GRANT pg_read_all_stats TO platform;
//   GRANT EXECUTE ON FUNCTION pg_stat_statements_reset TO platform;
// Without it the statements are left out, said so.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { continueOnPinnedNode } from '../scripts/lib/runtime.mjs';
import { loadProfile } from '../scripts/lib/profiles.mjs';
import { sleep } from '../scripts/lib/processes.mjs';
import { step } from '../scripts/lib/steps.mjs';
import { RESULTS_DIR } from './lib/child-bench.mjs';
import { measureOrderCost, openStatistics, ORDER_END_WAIT_MAX_MS } from './lib/cost.mjs';
import { closedLoop, ordersCreatedSince } from './lib/load.mjs';
import { boundedInt } from './lib/options.js';
import { createBenchPartner } from './lib/partners.mjs';
import { withProfiledServices } from './lib/profiling.mjs';
import { startReceiver } from './lib/receiver.mjs';
import { openStack, services, stackProcesses } from './lib/stack.mjs';

const require = createRequire(import.meta.url);
const { Client } = require('pg');

process.env.TEST_STACK_SLOT = process.env.BENCH_STACK_SLOT ?? '9';
// As the bench's own stack: quotes live long enough for a loaded machine's quote + buy.
process.env.STACK_ENV_QUOTE_TTL_MS ??= '600000';
/** Closed-loop clients of each round, in turn (a comma list: 1,20). */
const clientCounts = (process.env.BENCH_ORDER_CLIENTS ?? '20')
  .split(',')
  .map((count) => boundedInt({ BENCH_ORDER_CLIENTS: count.trim() }, 'BENCH_ORDER_CLIENTS', 20, 1, 256));
/** The partner's sockets, the warm-up and the profiled run: the most clients asked for. */
const clients = Math.max(...clientCounts);
const waitSampleMs = boundedInt(process.env, 'BENCH_WAIT_SAMPLE_MS', 50, 10, 1000);
const durationS = boundedInt(process.env, 'BENCH_ORDER_DURATION_S', 20, 1, 300);
const rounds = boundedInt(process.env, 'BENCH_ROUNDS', 1, 1, 10);
const WARM_UP_S = 5;
const modes = (process.env.BENCH_ORDERS_MODE ?? 'cost').split(',');
if (modes.some((mode) => !['cost', 'profile'].includes(mode)))
  throw new Error(`BENCH_ORDERS_MODE is cost, profile or cost,profile, not ${modes.join(',')}`);
/** The databases whose statements are listed, each on its own. */
const STATEMENTS_DATABASES = (
  process.env.BENCH_STATEMENTS_DATABASES ?? 'svc_trading,svc_ledger,svc_webhook_delivery'
).split(',');
/** The services run under --cpu-prof in the profile mode. */
const PROFILED_SERVICES = (process.env.BENCH_PROFILED_SERVICES ?? 'trading').split(',');
if (PROFILED_SERVICES.some((name) => !services.SERVICES.some((service) => service.name === name)))
  throw new Error(`BENCH_PROFILED_SERVICES names services of the stack, not ${PROFILED_SERVICES.join(',')}`);
/** Statements listed per round, at most (by total time). */
const STATEMENTS_SHOWN_MAX = 30;
/** A profiled service starting on a busy machine (load 40 and more) can take a minute. */
const SERVICE_READY_TIMEOUT_MS = 90_000;

const STATEMENTS_SQL = `
  SELECT s.query, s.calls::float8 AS calls, s.total_exec_time AS "execMs", s.total_plan_time AS "planMs",
         s.plans::float8 AS plans, s.rows::float8 AS rows
    FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
   WHERE d.datname = ANY($1::text[])`;

/** Backends of the listed databases running a statement, and what they wait on (null: not waiting). */
const ACTIVITY_SQL = `
  SELECT a.datname || ': ' || left(regexp_replace(a.query, '\\s+', ' ', 'g'), 90) AS query,
         CASE WHEN a.wait_event_type = 'Lock' THEN a.wait_event END AS "lockWait"
    FROM pg_stat_activity a
   WHERE a.datname = ANY($1::text[]) AND a.state = 'active' AND a.pid <> pg_backend_pid()`;

/**
 * Samples pg_stat_activity every `waitSampleMs` until stopped: per statement (its first 90
 * characters), the samples that found a backend running it and those that found it waiting
 * on a lock, by wait event.
 */
function sampleActivity(client) {
  const byQuery = new Map();
  let samples = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const { rows } = await client.query(ACTIVITY_SQL, [STATEMENTS_DATABASES]);
      samples += 1;
      for (const row of rows) {
        const seen = byQuery.get(row.query) ?? { running: 0, lockWaits: {} };
        seen.running += 1;
        if (row.lockWait) seen.lockWaits[row.lockWait] = (seen.lockWaits[row.lockWait] ?? 0) + 1;
        byQuery.set(row.query, seen);
      }
      await sleep(waitSampleMs);
    }
  })();
  return async () => {
    stopped = true;
    await loop;
    return { samples, byQuery };
  };
}

/** pg_stat_statements through the `postgres` database, or null when the server has not loaded it or we may not read it. */
async function openStatements(urlTemplate) {
  const client = new Client({ connectionString: urlTemplate.replace('{database}', 'postgres') });
  await client.connect();
  try {
    await client.query('SELECT pg_stat_statements_reset()');
  } catch (error) {
    console.log(`pg_stat_statements cannot be used (${error.message}): statements left out; see the header`);
    await client.end();
    return null;
  }
  const sampler = new Client({ connectionString: urlTemplate.replace('{database}', 'postgres') });
  await sampler.connect();
  const read = async () => {
    const result = await client.query(STATEMENTS_SQL.replace('s.query,', "d.datname || ': ' || s.query AS query,"), [
      STATEMENTS_DATABASES,
    ]);
    return new Map(result.rows.map((row) => [row.query, row]));
  };
  return {
    /** Each statement's counters over `work`, and how long it took. */
    async over(work) {
      await client.query('SELECT pg_stat_statements_reset()');
      const startedAt = Date.now();
      const stopSampling = sampleActivity(sampler);
      let result;
      let activity;
      try {
        result = await work();
      } finally {
        activity = await stopSampling();
      }
      return { result, seconds: (Date.now() - startedAt) / 1000, statements: await read(), activity };
    },
    close: () => Promise.all([client.end(), sampler.end()]),
  };
}

/** Per order: a statement's counters over the load less its idle rate over the same time. */
function statementsPerOrder(loaded, idle, orders) {
  const fields = ['calls', 'execMs', 'planMs', 'plans', 'rows'];
  const perOrder = [];
  for (const [query, row] of loaded.statements) {
    const background = idle.statements.get(query);
    const net = Object.fromEntries(
      fields.map((field) => [
        field,
        Math.max(0, row[field] - (background ? (background[field] / idle.seconds) * loaded.seconds : 0)) / orders,
      ]),
    );
    if (net.calls >= 0.01) perOrder.push({ query: query.replace(/\s+/g, ' ').trim(), ...net });
  }
  return perOrder.sort((left, right) => right.execMs + right.planMs - (left.execMs + left.planMs));
}

function printStatements(perOrder) {
  for (const database of STATEMENTS_DATABASES)
    printDatabaseStatements(
      database,
      perOrder.filter((row) => row.query.startsWith(`${database}: `)),
    );
}

function printDatabaseStatements(database, perOrder) {
  const sum = (field) => perOrder.reduce((total, row) => total + row[field], 0);
  console.log(
    `${database} per order: ${sum('calls').toFixed(2)} statements, exec ${sum('execMs').toFixed(3)} ms, plan ${sum('planMs').toFixed(3)} ms, rows ${sum('rows').toFixed(2)}`,
  );
  console.log('calls/order  exec ms/order  mean exec ms  plan ms/order  rows/order  statement');
  for (const row of perOrder.slice(0, STATEMENTS_SHOWN_MAX))
    console.log(
      `${row.calls.toFixed(2).padStart(11)}  ${row.execMs.toFixed(3).padStart(13)}  ${(row.execMs / row.calls).toFixed(3).padStart(12)}  ${row.planMs.toFixed(3).padStart(13)}  ${row.rows.toFixed(2).padStart(10)}  ${row.query.slice(0, 150)}`,
    );
}

/** The statements most often found running, with the samples that found them waiting on a lock. */
function printActivity({ samples, byQuery }) {
  console.log(
    `pg_stat_activity, ${samples} samples every ${waitSampleMs} ms: samples running (of which waiting on a lock, by event)`,
  );
  const rows = [...byQuery].sort((left, right) => right[1].running - left[1].running).slice(0, STATEMENTS_SHOWN_MAX);
  for (const [query, seen] of rows) {
    const waits = Object.entries(seen.lockWaits).map(([event, count]) => `${event} ${count}`);
    console.log(`${String(seen.running).padStart(6)}  ${(waits.join(', ') || '-').padEnd(32)}  ${query}`);
  }
}

function printCost(cost) {
  const shown = Object.entries(cost.cpuMsPerOrder)
    .filter(([name, ms]) => name !== 'total' && ms !== null && ms >= 0.05)
    .sort((left, right) => right[1] - left[1])
    .map(([name, ms]) => `${name} ${ms.toFixed(2)}`);
  console.log(`${cost.orders} orders; CPU ms per order ${cost.cpuMsPerOrder.total.toFixed(2)}: ${shown.join(', ')}`);
  const commits = Object.entries(cost.databases)
    .map(([name, counters]) => `${name} ${(counters.commits ?? 0).toFixed(2)}`)
    .join(', ');
  console.log(`commits per order: ${commits}`);
}

async function costRound(ctx, partner, round, clients) {
  const idle = ctx.statements
    ? await step(`round ${round}: idle statements, ${durationS} s`, () =>
        ctx.statements.over(() => sleep(durationS * 1000)),
      )
    : null;
  let loaded = null;
  const measured = await step(`round ${round}: ${clients} clients, ${durationS} s, then settlement and webhooks`, () =>
    measureOrderCost({
      statistics: ctx.statistics,
      processes: ctx.processes,
      waitEnded: ctx.receiver.waitEnded,
      createdSince: (sinceMs) => ordersCreatedSince(ctx.urlTemplate, partner.partnerId, sinceMs),
      earlierOrderIds: ctx.placed,
      log: (line) => console.log(line),
      load: async () => {
        if (!ctx.statements) return closedLoop({ partners: [partner], workers: clients, durationMs: durationS * 1000 });
        let result;
        loaded = await ctx.statements.over(async () => {
          result = await closedLoop({ partners: [partner], workers: clients, durationMs: durationS * 1000 });
          const created = await ordersCreatedSince(ctx.urlTemplate, partner.partnerId, Date.now() - durationS * 2000);
          await ctx.receiver.waitEnded([...new Set([...result.orderIds, ...created])], ORDER_END_WAIT_MAX_MS);
        });
        return result;
      },
    }),
  );
  ctx.placed.push(...measured.created);
  const { load, cost } = measured;
  console.log(
    `orders/s ${load.ordersPerSecond} (p50 ${load.latency.p50Ms} ms), failures ${JSON.stringify(load.failures)}`,
  );
  if (!cost) return { load, cost };
  printCost(cost);
  const statements = loaded ? statementsPerOrder(loaded, idle, cost.orders) : null;
  if (statements) printStatements(statements);
  else console.log('pg_stat_statements is not loaded by this PostgreSQL: statements left out (see the header)');
  if (loaded) printActivity(loaded.activity);
  const { orderIds, ...loadFigures } = load;
  const activity = loaded && { samples: loaded.activity.samples, byQuery: Object.fromEntries(loaded.activity.byQuery) };
  return { clients, load: loadFigures, cost, statements, activity };
}

/**
 * The newest profile in `dir`, cut to its last `lastMs` (the measured load: not the start-up's
 * module loading, not the warm-up), ranked by bench/cpu-profile-top.mjs.
 */
function printProfileTop(dir, lastMs) {
  const newest = readdirSync(dir)
    .filter((name) => name.endsWith('.cpuprofile'))
    .map((name) => path.join(dir, name))
    .sort((left, right) => statSync(right).mtimeMs - statSync(left).mtimeMs)[0];
  if (!newest) throw new Error(`no profile written to ${dir}`);
  const profile = JSON.parse(readFileSync(newest, 'utf8'));
  const fromUs = profile.endTime - lastMs * 1000;
  let atUs = profile.startTime;
  const samples = [];
  const timeDeltas = [];
  profile.samples.forEach((sample, index) => {
    atUs += profile.timeDeltas[index];
    if (atUs < fromUs) return;
    samples.push(sample);
    timeDeltas.push(timeDeltas.length === 0 ? 0 : profile.timeDeltas[index]);
  });
  const cut = newest.replace(/\.cpuprofile$/, '.load.cpuprofile');
  writeFileSync(cut, JSON.stringify({ ...profile, startTime: fromUs, samples, timeDeltas }));
  console.log(`${cut} (the last ${Math.round(lastMs)} ms of ${newest}):`);
  console.log(
    execFileSync(process.execPath, [path.join(import.meta.dirname, 'cpu-profile-top.mjs'), cut, '40'], {
      encoding: 'utf8',
    }),
  );
}

async function profileRound(ctx, partner) {
  let load;
  let loadStartedAt;
  await withProfiledServices(
    { profile: ctx.profile },
    PROFILED_SERVICES,
    async () => {
      // The gateway reconnects to the new instance and its code warms up before anything is measured.
      await step(`warm-up under the profiler, ${WARM_UP_S} s`, () =>
        closedLoop({ partners: [partner], workers: clients, durationMs: WARM_UP_S * 1000 }),
      );
      loadStartedAt = performance.now();
      load = await step(`${clients} clients, ${durationS} s, ${PROFILED_SERVICES.join(', ')} under --cpu-prof`, () =>
        closedLoop({ partners: [partner], workers: clients, durationMs: durationS * 1000 }),
      );
      const created = await ordersCreatedSince(ctx.urlTemplate, partner.partnerId, Date.now() - durationS * 2000);
      await step('settled and delivered', async () => {
        const missing = await ctx.receiver.waitEnded(
          [...new Set([...load.orderIds, ...created])],
          ORDER_END_WAIT_MAX_MS,
        );
        return `${missing.length} not ended`;
      });
    },
    { readyTimeoutMs: SERVICE_READY_TIMEOUT_MS },
  );
  const loadMs = performance.now() - loadStartedAt;
  console.log(
    `orders/s ${load.ordersPerSecond} under the profiler (${load.orders} orders), failures ${JSON.stringify(load.failures)}`,
  );
  for (const name of PROFILED_SERVICES) printProfileTop(path.join(RESULTS_DIR, `cpu-orders-${name}`), loadMs);
}

async function main() {
  await continueOnPinnedNode();
  const stack = await openStack(loadProfile('test'));
  const receiver = await startReceiver(stack.description.tlsDir);
  const urlTemplate = stack.description.postgres.urlTemplate;
  const statistics = await openStatistics(urlTemplate, services.DATABASE_NAMES).catch(async (error) => {
    await Promise.all([receiver.close(), stack.stop()]);
    throw error;
  });
  const statements = await openStatements(urlTemplate).catch(() => null);
  const report = {
    ranAt: new Date().toISOString(),
    loadAverageAtStart: os.loadavg(),
    modes,
    clients: clientCounts,
    durationS,
    rounds: [],
  };
  console.log(
    `load average at start ${os
      .loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')}`,
  );
  try {
    const partner = await step('partner', () =>
      createBenchPartner({
        stackFile: stack.stackFile,
        gatewayUrl: stack.description.gatewayUrl,
        receiverUrl: receiver.url,
        // Its own name each run: a second run on a kept stack must not meet the first run's partner.
        name: `Bench orders profiled ${Date.now()}`,
        sockets: clients,
      }),
    );
    const warm = await step(`warm-up, ${WARM_UP_S} s`, () =>
      closedLoop({ partners: [partner], workers: clients, durationMs: WARM_UP_S * 1000 }),
    );
    const ctx = {
      profile: stack.profile,
      urlTemplate,
      statistics,
      statements,
      receiver,
      processes: await stackProcesses(stack.profile),
      placed: warm.orderIds,
    };
    if (modes.includes('cost'))
      for (const roundClients of clientCounts)
        for (let round = 1; round <= rounds; round += 1)
          report.rounds.push(await costRound(ctx, partner, round, roundClients));
    // Last: the profiled instance replaces the stack's trading, which is not restarted.
    if (modes.includes('profile')) await profileRound(ctx, partner);
    report.loadAverageAtEnd = os.loadavg();
    console.log(
      `load average at end ${os
        .loadavg()
        .map((value) => value.toFixed(2))
        .join(' ')}`,
    );
    if (modes.includes('cost')) {
      mkdirSync(RESULTS_DIR, { recursive: true });
      const file = path.join(RESULTS_DIR, `orders-profile-${report.ranAt.replace(/[:.]/g, '-')}.json`);
      writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
      console.log(`written ${file}`);
    }
  } finally {
    await statements?.close();
    await statistics.close();
    await receiver.close();
    await stack.stop();
  }
}

main().catch((error) => {
  console.error(`✘ ${error.stack ?? error.message}`);
  process.exitCode = 1;
});
