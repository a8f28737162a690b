#!/usr/bin/env node
// `npm run bench`: every figure of the performance targets beside its ceiling, measured in
// the same run on the same machine, printed as one table (figure, ceiling, ratio, must reach,
// aim, verdict) and written as JSON to bench/results/ (git-ignored). Never part of `npm test`.
//
// Sections (BENCH_SECTIONS=a,b,… picks some, `all` adds the optional ones; default: the first five):
//   sequential  one client in sequence, idle stack: health / quote / buy / get order p50, p99
//   gateway     signed GET /v1/health, /v1/balances, /v1/orders/{id}, POST /v1/quotes through the
//               gateway against bare express and node:http hello-worlds; /v1/orders/{id} p99 at
//               half its maximum rate; a page of 100 events and of 100 statement lines, one client
//               on the idle stack, within one order read's latency budget, then each under load
//   orders      quote + debit-first buy, one partner, BENCH_ORDER_CLIENTS closed-loop clients: orders/s,
//               p50/p99, and its cost per order through settlement and webhooks (CPU per process,
//               PostgreSQL commits and rows per database and table); p99 at BENCH_FIXED_RATE orders/s;
//               pgbench tpcb-like on the same PostgreSQL
//   volume      the same closed loop for a partner with BENCH_HISTORY_ORDERS earlier orders in its
//               24-hour window (seeded in PostgreSQL, bench/seed/), beside the run with none
//   webhooks    deliveries/s with one and two webhook-delivery workers (after the stack stops)
//   spread      (optional) the closed loop spread over 8 partners
//   ledger      (optional) the ledger's money paths over gRPC beside pgbench running the entry shape
//   history     (`--history`, alone) the order loop and the partner reads on an empty database, then
//               again after seeding months of history in PostgreSQL (bench/sections/history.mjs); after
//               the stack stops, the webhook rows without and with a seeded history of deliveries
//               (bench/sections/history-webhooks.mjs)
// Resident memory of every service (idle at start, peak over the run), the load average at
// start and end of the run and of each section, and the machine are always reported.
//
//   npm run bench                              its own test-profile stack in slot BENCH_STACK_SLOT
//                                              (default 9), stopped after
//   BENCH_STACK_FILE=.stack/stack.json ...     a started stack instead (webhooks still use BENCH_STACK_SLOT)
//   BENCH_CPU_PROFILE=1                        afterwards, profiles a second gateway under load and
//                                              trading + the ledger under the order load (bench/results/)
//   npm run bench -- --history [small|large]   the history section only: 10,000 partners, 1,000,000
//                                              background orders and 1,000,000 transfers over 90 days
//                                              and 100,000 orders in the hot partner's window (`small`
//                                              1/100 of that, `large` ten times)
//   BENCH_SECTIONS=historyWebhooks npm run bench -- --history   one of its two parts (history or
//                                              historyWebhooks), e.g. the webhook rows alone after a
//                                              change to the delivery path (no stack started)
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { continueOnPinnedNode } from '../scripts/lib/runtime.mjs';
import path from 'node:path';
import { loadProfile, REPO_ROOT } from '../scripts/lib/profiles.mjs';
import { step } from '../scripts/lib/steps.mjs';
import { RESULTS_DIR } from './lib/child-bench.mjs';
import { openStatistics } from './lib/cost.mjs';
import { formatTable, tally } from './lib/figures.js';
import { closedLoop } from './lib/load.mjs';
import { startMemorySampler } from './lib/memory.mjs';
import { boundedInt, parseSections } from './lib/options.js';
import { createBenchPartner } from './lib/partners.mjs';
import { profileGateway, withProfiledServices } from './lib/profiling.mjs';
import { startReceiver } from './lib/receiver.mjs';
import { openStack, services, stackProcesses } from './lib/stack.mjs';
import { historyScale } from './lib/history-rows.js';
import { gatewaySection } from './sections/gateway.mjs';
import { historySection } from './sections/history.mjs';
import { historyWebhooksSection } from './sections/history-webhooks.mjs';
import { ledgerSection } from './sections/ledger.mjs';
import { ordersSection } from './sections/orders.mjs';
import { sequentialSection } from './sections/sequential.mjs';
import { spreadSection } from './sections/spread.mjs';
import { volumeSection } from './sections/volume.mjs';
import { webhooksSection } from './sections/webhooks.mjs';

const BENCH_STACK_SLOT_DEFAULT = '9';
// The stack helpers read the slot when the profile is loaded: set it before anything loads one.
process.env.TEST_STACK_SLOT = process.env.BENCH_STACK_SLOT ?? BENCH_STACK_SLOT_DEFAULT;
// The test profile scales the 30 s quote lifetime to 1.5 s (SANDBOX_TIME_SCALE 0.05), less than
// one quote + order round on a loaded machine: the bench's own stack gives quotes the maximum
// (600 s × 0.05 = 30 s) so it measures throughput, not expiry. A stack named by BENCH_STACK_FILE keeps its own.
process.env.STACK_ENV_QUOTE_TTL_MS ??= '600000';

/** The whole run stops (stack stopped, exit 1) past this: a full run takes about 15 minutes. */
const RUN_TIME_LIMIT_MS = 45 * 60_000;
/** A history run may take this much longer per unit of scale (seeding, ledger check, ANALYZE). */
const HISTORY_TIME_LIMIT_MS_PER_SCALE = 3 * 60 * 60_000;
const MIB = 1024;

const SECTIONS = {
  sequential: sequentialSection,
  gateway: gatewaySection,
  orders: ordersSection,
  volume: volumeSection,
  spread: spreadSection,
  ledger: ledgerSection,
  webhooks: webhooksSection,
  history: historySection,
  historyWebhooks: historyWebhooksSection,
};
const DEFAULT_SECTIONS = ['sequential', 'gateway', 'orders', 'volume', 'webhooks'];
/** Run after this run's stack is stopped. */
const WITHOUT_STACK = new Set(['webhooks', 'historyWebhooks']);
/** `--history` runs these alone. */
const HISTORY_SECTIONS = ['history', 'historyWebhooks'];

const env = process.env;
const history = historyScale(process.argv.slice(2));
const runTimeLimitMs = RUN_TIME_LIMIT_MS + (history ? history.factor * HISTORY_TIME_LIMIT_MS_PER_SCALE : 0);
const options = {
  history,
  durationS: boundedInt(env, 'BENCH_DURATION_S', 10, 1, 300),
  connections: boundedInt(env, 'BENCH_CONNECTIONS', 32, 1, 512),
  orderClients: boundedInt(env, 'BENCH_ORDER_CLIENTS', 20, 1, 256),
  orderDurationS: boundedInt(env, 'BENCH_ORDER_DURATION_S', 20, 1, 300),
  fixedRatePerSecond: boundedInt(env, 'BENCH_FIXED_RATE', 100, 1, 2_000),
  fixedRateDurationS: boundedInt(env, 'BENCH_FIXED_RATE_DURATION_S', 15, 1, 300),
  sequentialRounds: boundedInt(env, 'BENCH_SEQUENTIAL_ROUNDS', 200, 10, 5_000),
  historyOrders: boundedInt(env, 'BENCH_HISTORY_ORDERS', 100_000, 2, 10_000_000),
  cpuProfile: env.BENCH_CPU_PROFILE === '1',
  sections: history
    ? parseSections(env.BENCH_SECTIONS, HISTORY_SECTIONS, HISTORY_SECTIONS)
    : parseSections(
        env.BENCH_SECTIONS,
        Object.keys(SECTIONS).filter((name) => !HISTORY_SECTIONS.includes(name)),
        DEFAULT_SECTIONS,
      ),
};

const loadAverage = () => os.loadavg().map((value) => Number(value.toFixed(2)));

function gitRevision() {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim() !== '';
    return `${commit}${dirty ? ' (uncommitted changes)' : ''}`;
  } catch {
    return 'unknown';
  }
}

function machine() {
  return {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGiB: Number((os.totalmem() / 2 ** 30).toFixed(1)),
    kernel: `${os.type()} ${os.release()}`,
    node: process.version,
    revision: gitRevision(),
  };
}

/** Runs one section, recording its duration and the load average around it; a failure is reported, not fatal. */
async function runSection(name, ctx, report) {
  const record = { loadAverageAtStart: loadAverage(), startedAt: new Date().toISOString() };
  report.sections[name] = record;
  console.log(`\n▶ ${name}`);
  const startedAtMs = Date.now();
  try {
    const result = await SECTIONS[name](ctx);
    ctx.results[name] = result;
    record.result = result;
  } catch (error) {
    // A failed step has printed itself; its cause says what went wrong.
    const cause = error.cause ?? error;
    record.error = cause.stack ?? cause.message;
    console.error(`✘ ${name}: ${cause.message}`);
    ctx.rows.push({
      section: name,
      figure: `section ${name} failed: ${cause.message.split('\n')[0].slice(0, 160)}`,
      value: null,
      invalid: 'section failed',
    });
  }
  record.durationS = Math.round((Date.now() - startedAtMs) / 1000);
  record.loadAverageAtEnd = loadAverage();
}

function memoryRows(memory, rows) {
  const section = 'resident memory per service (MiB)';
  for (const [name, idle] of Object.entries(memory.idleKiB)) {
    rows.push({
      section,
      id: 'memory.idle',
      figure: `${name} idle`,
      value: idle === null ? null : Math.round(idle / MIB),
    });
    rows.push({
      section,
      id: 'memory.peak',
      figure: `${name} peak over the run`,
      value: memory.peakKiB[name] ? Math.round(memory.peakKiB[name] / MIB) : null,
    });
  }
}

/** Profiled extra runs, last: they replace the stack's trading and ledger. */
async function profileRun(ctx) {
  const partner = await ctx.newPartner('Bench profiled', { sockets: ctx.options.orderClients });
  await profileGateway(ctx, partner);
  await withProfiledServices(ctx, ['trading', 'ledger'], () =>
    step('order load under --cpu-prof (trading, ledger)', () =>
      closedLoop({
        partners: [partner],
        workers: ctx.options.orderClients,
        durationMs: ctx.options.orderDurationS * 1000,
      }),
    ),
  );
}

async function withStack(report, rows) {
  const profile = loadProfile('test');
  const stack = await openStack(profile);
  const cleanups = [() => stack.stop()];
  const stopAll = async () => {
    for (const cleanup of cleanups.reverse())
      await cleanup().catch((error) => console.error(`stopping: ${error.message}`));
    cleanups.length = 0;
  };
  const watchdog = setTimeout(async () => {
    console.error(`✘ the bench ran past ${Math.round(runTimeLimitMs / 60_000)} minutes: stopping`);
    await stopAll();
    process.exit(1);
  }, runTimeLimitMs);
  watchdog.unref();
  try {
    const { description } = stack;
    const receiver = await startReceiver(description.tlsDir);
    cleanups.push(() => receiver.close());
    const statistics = await openStatistics(description.postgres.urlTemplate, services.DATABASE_NAMES);
    cleanups.push(() => statistics.close());
    report.machine.postgres = await statistics.serverVersion();
    const processes = await stackProcesses(stack.profile);
    report.processes = processes;
    const memory = startMemorySampler(
      Object.fromEntries(services.SERVICE_NAMES.map((name) => [name, processes[name]])),
    );
    cleanups.push(async () => memory.stop());
    const ctx = {
      options,
      profile: stack.profile,
      stackFile: stack.stackFile,
      description,
      gatewayUrl: description.gatewayUrl,
      receiver,
      statistics,
      processes,
      rows,
      results: {},
      placedOrderIds: [],
      machine: report.machine,
      log: (line) => console.log(line),
      newPartner: (name, { sockets, fundingKes } = {}) =>
        step(`partner ${name}`, () =>
          createBenchPartner({
            stackFile: stack.stackFile,
            gatewayUrl: description.gatewayUrl,
            receiverUrl: receiver.url,
            name,
            sockets,
            fundingKes,
          }),
        ),
    };
    for (const name of options.sections.filter((section) => !WITHOUT_STACK.has(section)))
      await runSection(name, ctx, report);
    memory.stop();
    memoryRows(memory, rows);
    report.memory = { idleKiB: memory.idleKiB, peakKiB: memory.peakKiB };
    report.webhooksReceived = receiver.counts;
    if (options.cpuProfile) await profileRun(ctx);
    return ctx;
  } finally {
    clearTimeout(watchdog);
    await stopAll();
  }
}

async function main() {
  // Measured on the Node the images run (a bench started on another goes on in a child on it).
  await continueOnPinnedNode();
  mkdirSync(RESULTS_DIR, { recursive: true });
  const report = {
    ranAt: new Date().toISOString(),
    machine: machine(),
    loadAverageAtStart: loadAverage(),
    slot: process.env.TEST_STACK_SLOT,
    options,
    sections: {},
    rows: [],
  };
  console.log(
    `bench: ${options.sections.join(', ')}; load average ${report.loadAverageAtStart.join(' ')} on ${report.machine.cpus} CPUs`,
  );
  const rows = report.rows;
  let ctx = { rows, results: {}, options, machine: report.machine };
  if (options.sections.some((name) => !WITHOUT_STACK.has(name))) ctx = await withStack(report, rows);
  for (const name of options.sections.filter((section) => WITHOUT_STACK.has(section)))
    await runSection(name, ctx, report);
  report.loadAverageAtEnd = loadAverage();
  report.finishedAt = new Date().toISOString();
  report.tally = tally(rows);
  console.log(`\n${formatTable(rows)}`);
  const file = path.join(RESULTS_DIR, `bench-${report.ranAt.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  const { machine: facts } = report;
  console.log(
    `\nmust-reach figures: ${report.tally.met} met, ${report.tally.notMet} not met, ${report.tally.unjudged} without a valid value`,
  );
  console.log(
    `machine: ${facts.cpus} × ${facts.cpuModel}, ${facts.memoryGiB} GiB, ${facts.kernel}, Node ${facts.node}, PostgreSQL ${facts.postgres ?? '?'}; revision ${facts.revision}`,
  );
  console.log(
    `load average (1 / 5 / 15 min): ${report.loadAverageAtStart.join(' / ')} at start, ${report.loadAverageAtEnd.join(' / ')} at end`,
  );
  console.log(`written ${path.relative(process.cwd(), file)}`);
  if (Object.values(report.sections).some((section) => section.error)) process.exitCode = 1;
}

main().catch((error) => {
  console.error(`✘ ${error.stack ?? error.message}`);
  process.exitCode = 1;
});
