#!/usr/bin/env node
// `npm run bench`: every benchmark with its ceiling, measured in the same run on the same
// machine, printed as one table (figure, ceiling, ratio) and written as JSON to bench/results/.
// Sections:
//   gateway   signed GET /v1/health, GET /v1/balances and GET /v1/orders/{id} (one buy order
//             placed first) through the gateway (autocannon, a partner with a raised rate
//             limit) against a bare express hello-world and a bare node:http server
//             (ceilings, same signed requests, same load generator);
//   memory    resident memory (VmRSS) of each service idle and at peak under the gateway load;
//   ledger    `npm run bench:ledger` (bench/ledger.mjs) against this run's stack, against
//             pgbench running the entry's shape (bench/ledger-ceiling.mjs) on the same PostgreSQL;
//   orders    `npm run bench:orders` (bench/orders.mjs) against this run's stack: quote + buy
//             orders/s and p50/p95/p99 against pgbench (tpcb-like) on the same PostgreSQL;
//   webhooks  `npm run bench:webhooks` (bench/webhook-delivery.mjs), after this run's stack
//             is stopped (it starts its own replicas on the same slot's infrastructure).
// Never part of `npm test`.
//
//   npm run bench                              starts its own test-profile stack in slot
//                                              BENCH_STACK_SLOT (default 9), stops it after
//   BENCH_STACK_FILE=.stack/stack.json ...     gateway, memory and ledger against a started
//                                              stack instead (webhooks still use BENCH_STACK_SLOT)
//   BENCH_DURATION_S=10 BENCH_CONNECTIONS=32   seconds per gateway figure, connections
//   BENCH_SECTIONS=gateway,memory,ledger,webhooks   a subset
//   BENCH_CPU_PROFILE=1                        also run the gateway's balances load once more
//                                              against a gateway started with --cpu-prof
//                                              (profile in bench/results/); with the orders
//                                              section, trading and the ledger run under
//                                              --cpu-prof during it (bench/results/cpu-orders-*/)
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { loadProfile, REPO_ROOT } from '../scripts/lib/profiles.mjs';
import { ledgerCeiling } from './ledger-ceiling.mjs';

const BENCH_STACK_SLOT_DEFAULT = '9';
// The stack helpers read the slot when the profile is loaded: set it before anything loads one.
process.env.TEST_STACK_SLOT = process.env.BENCH_STACK_SLOT ?? BENCH_STACK_SLOT_DEFAULT;

// The test profile scales the 30 s quote lifetime to 1.5 s (SANDBOX_TIME_SCALE 0.05), less than
// one quote + order round on a loaded machine: the bench's own stack gives quotes the maximum
// (600 s × 0.05 = 30 s) so it measures throughput, not expiry. A stack named by BENCH_STACK_FILE keeps its own.
process.env.STACK_ENV_QUOTE_TTL_MS ??= '600000';

const require = createRequire(import.meta.url);
const autocannon = require('autocannon');
const { signedRequestHeaders } = require('@platform/crypto');
const infra = await import('../scripts/lib/infra.mjs');
const services = await import('../scripts/lib/services.mjs');
const { acquireLock, isPortOpen, sleep, stopPid } = await import('../scripts/lib/processes.mjs');
const { step } = await import('../scripts/lib/steps.mjs');
const { buildAll } = await import('../scripts/lib/workspace.mjs');

const DURATION_S_DEFAULT = 10;
const DURATION_S_MAX = 300;
const CONNECTIONS_DEFAULT = 32;
const CONNECTIONS_MAX = 512;
const RATE_LIMIT_PER_MINUTE = 100_000;
/** Ceiling servers listen here (the range the repository leaves for ad-hoc servers). */
const EXPRESS_CEILING_PORT = 23901;
const NODE_HTTP_CEILING_PORT = 23902;
const PROFILED_GATEWAY_PORT = 23903;
const PROFILED_GATEWAY_GRPC_PORT = 23904;
const SERVER_READY_TIMEOUT_MS = 15_000;
const SERVER_POLL_MS = 100;
const RSS_SAMPLE_INTERVAL_MS = 250;
const OPS_TIMEOUT_MS = 60_000;
const SECTION_TIMEOUT_MS = 30 * 60_000;
const RESULTS_DIR = path.join(REPO_ROOT, 'bench', 'results');
const SECTIONS = ['gateway', 'memory', 'ledger', 'orders', 'webhooks'];
/** The one order the gateway section reads back: a pinned rate, enough KES for it. */
const READ_ORDER_BID = '128.0000';
const READ_ORDER_ASK = '130.0000';
const READ_ORDER_FUNDING_KES = '1000.00';
const READ_ORDER_KES = '100.00';
const REQUEST_TIMEOUT_MS = 30_000;

function boundedInt(name, fallback, max) {
  const raw = process.env[name];
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > max) throw new Error(`${name} must be an integer 1..${max}`);
  return value;
}

const durationS = boundedInt('BENCH_DURATION_S', DURATION_S_DEFAULT, DURATION_S_MAX);
const connections = boundedInt('BENCH_CONNECTIONS', CONNECTIONS_DEFAULT, CONNECTIONS_MAX);
const sections = new Set((process.env.BENCH_SECTIONS ?? SECTIONS.join(',')).split(',').map((name) => name.trim()));
for (const name of sections) if (!SECTIONS.includes(name)) throw new Error(`unknown section ${name} (expected ${SECTIONS.join(', ')})`);

// ---------------------------------------------------------------- machine

function machine() {
  const [load1, load5, load15] = os.loadavg();
  return {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGiB: Number((os.totalmem() / 2 ** 30).toFixed(1)),
    node: process.version,
    load: { load1: Number(load1.toFixed(2)), load5: Number(load5.toFixed(2)), load15: Number(load15.toFixed(2)) },
  };
}

// ---------------------------------------------------------------- stack

async function ownStack(profile) {
  const releaseLock = acquireLock(path.join(profile.stackDir, 'test.lock'), 'bench');
  infra.prepareStackFolder(profile);
  const log = (name) => path.join(profile.logsDir, name);
  const stop = async () => {
    await services.stopAll(profile).catch(() => {});
    await infra.stopInfra(profile).catch(() => {});
    releaseLock();
  };
  try {
    await step('built', () => buildAll({ logFile: log('build.log') }));
    await step('secrets and TLS', async () => { infra.ensureSecrets(profile); await infra.ensureTls(profile); await services.ensureServiceIdentities(profile); });
    await step('postgres started', () => infra.startPostgres(profile));
    await step('redis started', () => infra.startRedis(profile));
    await step('rabbitmq started', () => infra.startRabbit(profile));
    await step('databases recreated', () => infra.ensureDatabases(profile, services.DATABASE_NAMES, { recreate: true }));
    await step('migrations applied', () => services.migrateAll(profile));
    await step('services started', async () => `services started: ${(await services.startAll(profile)).join(', ')}`);
    await step('services ready', () => services.waitReady(profile));
    services.writeStackFile(profile);
  } catch (error) {
    await stop();
    throw error;
  }
  return { stackFile: profile.stackFile, stop, own: true };
}

async function stack(profile) {
  const file = process.env.BENCH_STACK_FILE;
  if (!file) return ownStack(profile);
  if (!existsSync(file)) throw new Error(`BENCH_STACK_FILE ${file} does not exist`);
  return { stackFile: path.resolve(file), stop: async () => {}, own: false };
}

function runOps(stackFile, args) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [path.join(REPO_ROOT, 'tools/ops/dist/main.js'), ...args, '--json'], {
      env: { ...process.env, OPS_STACK_FILE: stackFile }, timeout: OPS_TIMEOUT_MS,
    }, (error, stdout, stderr) => (error ? reject(new Error(`ops ${args[0]}: ${stderr || error.message}`)) : resolve(JSON.parse(stdout))));
  });
}

// ---------------------------------------------------------------- load

/** A signed JSON POST, as a partner sends it; refuses any status but `expected`. */
async function signedPost(gatewayUrl, credentials, pathAndQuery, body, expected) {
  const text = JSON.stringify(body);
  const headers = { ...signedRequestHeaders(credentials, { method: 'POST', pathAndQuery, body: text }), 'Content-Type': 'application/json' };
  const response = await fetch(`${gatewayUrl}${pathAndQuery}`, { method: 'POST', headers, body: text, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  const answer = await response.text();
  if (response.status !== expected) throw new Error(`POST ${pathAndQuery}: ${response.status} ${answer}`);
  return JSON.parse(answer);
}

/** One settled-or-pending buy order of the bench partner, whose id the order-read load asks for. */
async function placeOneOrder(gatewayUrl, credentials) {
  await signedPost(gatewayUrl, credentials, '/v1/sandbox/rates', { bid: READ_ORDER_BID, ask: READ_ORDER_ASK }, 200);
  await signedPost(gatewayUrl, credentials, '/v1/sandbox/kes-credits', { amount: READ_ORDER_FUNDING_KES }, 201);
  const quote = await signedPost(gatewayUrl, credentials, '/v1/quotes', { side: 'buy', kesAmount: READ_ORDER_KES }, 201);
  const order = await signedPost(gatewayUrl, credentials, '/v1/orders/buy', { quoteId: quote.quoteId, partnerReference: 'bench-read' }, 202);
  return order.orderId;
}

/** Each request signed afresh (own nonce and timestamp), as a partner would send it. */
function signedRequests(credentials, requestPath) {
  return [{
    method: 'GET',
    path: requestPath,
    setupRequest: (request) => ({
      ...request,
      headers: { ...request.headers, ...signedRequestHeaders(credentials, { method: 'GET', pathAndQuery: requestPath }) },
    }),
  }];
}

async function load(url, requests) {
  const result = await autocannon({ url, connections, duration: durationS, requests });
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

const CEILING_SOURCES = {
  'node:http': (port) => `require('node:http').createServer((req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"status":"ok"}'); }).listen(${port}, '127.0.0.1');`,
  express: (port) => `const app = require('express')(); app.get('*splat', (req, res) => res.json({ status: 'ok' })); app.listen(${port}, '127.0.0.1');`,
};

async function waitForPort(port) {
  const deadline = Date.now() + SERVER_READY_TIMEOUT_MS;
  while (!(await isPortOpen(port))) {
    if (Date.now() > deadline) throw new Error(`nothing listens on ${port} after ${SERVER_READY_TIMEOUT_MS} ms`);
    await sleep(SERVER_POLL_MS);
  }
}

/** A ceiling server in a process of its own (like the gateway), stopped by the caller. */
async function startCeiling(kind, port) {
  const child = spawn(process.execPath, ['-e', CEILING_SOURCES[kind](port)], {
    cwd: path.join(REPO_ROOT, 'services', 'gateway'), stdio: 'ignore',
  });
  await waitForPort(port);
  return child;
}

function rssKiB(pid) {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((entry) => entry.startsWith('VmRSS:'));
    return line ? Number(line.split(/\s+/)[1]) : null;
  } catch {
    return null;
  }
}

function servicePids(profile) {
  return Object.fromEntries(services.SERVICES.map((service) => [service.name, services.servicePid(profile, service)]));
}

/** Samples every service's RSS while `work` runs; resolves to the work's result and each peak (KiB). */
async function withRssPeaks(pids, work) {
  const peaks = Object.fromEntries(Object.keys(pids).map((name) => [name, 0]));
  const sample = () => {
    for (const [name, pid] of Object.entries(pids)) peaks[name] = Math.max(peaks[name], rssKiB(pid) ?? 0);
  };
  const timer = setInterval(sample, RSS_SAMPLE_INTERVAL_MS);
  try {
    return { result: await work(), peaks };
  } finally {
    clearInterval(timer);
    sample();
  }
}

// ---------------------------------------------------------------- sections

async function gatewaySection(profile, stackFile, rows, report) {
  const stackInfo = JSON.parse(readFileSync(stackFile, 'utf8'));
  const partner = await runOps(stackFile, ['partner', 'create', '--name', 'Bench', '--admin-domain', 'bench.example.com',
    '--rate-limit-per-minute', String(RATE_LIMIT_PER_MINUTE)]);
  const credentials = { apiKey: partner.apiKey, signingSecret: partner.signingSecret };
  const pids = servicePids(profile);
  report.memory = { idleKiB: Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, pid ? rssKiB(pid) : null])) };

  const ceilings = {};
  for (const [kind, port] of [['node:http', NODE_HTTP_CEILING_PORT], ['express', EXPRESS_CEILING_PORT]]) {
    const server = await startCeiling(kind, port);
    try {
      ceilings[kind] = await step(`ceiling ${kind}`, async () => load(`http://127.0.0.1:${port}`, signedRequests(credentials, '/v1/health')));
    } finally {
      server.kill('SIGTERM');
    }
  }
  let orderId = '';
  await step('one order to read', async () => { orderId = await placeOneOrder(stackInfo.gatewayUrl, credentials); });
  const gateway = {};
  const peaksUnderLoad = {};
  const reads = [['/v1/health', '/v1/health'], ['/v1/balances', '/v1/balances'], ['/v1/orders/{id}', `/v1/orders/${orderId}`]];
  for (const [requestPath, pathAndQuery] of reads) {
    const { result, peaks } = await withRssPeaks(pids, () => step(`gateway GET ${requestPath}`, () => load(stackInfo.gatewayUrl, signedRequests(credentials, pathAndQuery))));
    gateway[requestPath] = result;
    for (const [name, peak] of Object.entries(peaks)) peaksUnderLoad[name] = Math.max(peaksUnderLoad[name] ?? 0, peak);
  }
  report.memory.underGatewayLoadPeakKiB = peaksUnderLoad;
  report.gateway = { connections, durationS, ceilings, gateway };
  for (const [requestPath, figure] of Object.entries(gateway)) {
    const valid = figure.non2xx === 0 && figure.errors === 0;
    for (const [kind, ceiling] of Object.entries(ceilings)) {
      rows.push({
        figure: `gateway signed GET ${requestPath} req/s${valid ? '' : ` (INVALID: ${figure.non2xx} non-2xx, ${figure.errors} errors)`}`,
        value: figure.requestsPerSecond, ceiling: `${kind} hello-world req/s`, ceilingValue: ceiling.requestsPerSecond,
      });
    }
    rows.push({ figure: `gateway signed GET ${requestPath} p50 / p99 ms`, value: `${figure.p50Ms} / ${figure.p99Ms}`,
      ceiling: 'node:http p50 / p99 ms', ceilingValue: `${ceilings['node:http'].p50Ms} / ${ceilings['node:http'].p99Ms}` });
  }
  return credentials;
}

function memoryRows(report, rows) {
  if (!report.memory) return;
  for (const [name, idle] of Object.entries(report.memory.idleKiB)) {
    const peak = report.memory.underGatewayLoadPeakKiB?.[name];
    rows.push({ figure: `${name} RSS idle / under gateway load MiB`, value: `${mib(idle)} / ${mib(peak)}`, ceiling: '', ceilingValue: '' });
  }
}

const mib = (kib) => (kib ? (kib / 1024).toFixed(0) : '?');

/** Runs an existing bench script and reads the JSON it wrote (the newest file with `prefix`). */
async function childBench(script, prefix, env) {
  const startedAtMs = Date.now();
  const exitCode = await new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, 'bench', script)], { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: 'inherit' });
    const timer = setTimeout(() => child.kill('SIGTERM'), SECTION_TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(code ?? 1);
    });
  });
  if (exitCode !== 0) throw new Error(`${script} exited with ${exitCode}`);
  const newest = readdirSync(RESULTS_DIR).filter((name) => name.startsWith(prefix))
    .map((name) => path.join(RESULTS_DIR, name)).filter((file) => statSync(file).mtimeMs >= startedAtMs)
    .sort((left, right) => statSync(right).mtimeMs - statSync(left).mtimeMs)[0];
  if (!newest) throw new Error(`${script} wrote no ${prefix}*.json`);
  return JSON.parse(readFileSync(newest, 'utf8'));
}

function ledgerRows(result, ceiling, rows) {
  for (const scenario of result.results) {
    const shape = scenario.scenario.includes('hot') ? 'hot' : 'spread';
    rows.push({ figure: `ledger ${scenario.scenario} ops/s (p50 / p99 ms ${scenario.p50Ms} / ${scenario.p99Ms})`, value: scenario.perSecond,
      ceiling: `pgbench entry shape, ${shape === 'hot' ? '1 hot account' : `${ceiling.spreadAccounts} accounts`}, ${ceiling.clients} clients tps`, ceilingValue: ceiling[shape].tps });
  }
}

function orderRows(result, rows) {
  const { pgbench: p } = result;
  for (const o of result.orderPaths) {
    const failed = Object.values(o.failures).reduce((sum, count) => sum + count, 0);
    const who = `${result.concurrency} clients, ${o.partners} partner(s)`;
    rows.push({ figure: `order path quote + buy orders/s, ${who}${failed === 0 ? '' : ` (INVALID: ${failed} failed)`}`,
      value: o.ordersPerSecond, ceiling: `pgbench tpcb-like tps, scale ${p.scale}, ${p.clients} clients`, ceilingValue: p.tps });
    rows.push({ figure: `order path p50 / p95 / p99 ms, ${who}`, value: `${o.p50Ms} / ${o.p95Ms} / ${o.p99Ms}`,
      ceiling: 'pgbench latency average ms', ceilingValue: String(p.latencyAverageMs) });
  }
}

function webhookRows(result, rows) {
  for (const run of result.results) {
    rows.push({ figure: `webhooks ${run.workers} worker(s) deliveries/s (p50 / p99 ms ${run.p50Ms.toFixed(1)} / ${run.p99Ms.toFixed(1)})`,
      value: Math.round(run.deliveriesPerSecond), ceiling: `receiver answers after ${result.receiverLatencyMs} ms`, ceilingValue: '' });
  }
}

/** Runs the balances load against a second gateway started with --cpu-prof; the profile lands in bench/results/. */
async function cpuProfile(profile, stackFile, credentials) {
  const env = { ...services.serviceEnvironment(profile, services.SERVICES.find((service) => service.name === 'gateway')), HTTP_PORT: String(PROFILED_GATEWAY_PORT), GRPC_PORT: String(PROFILED_GATEWAY_GRPC_PORT) };
  const gatewayDir = path.join(REPO_ROOT, 'services', 'gateway');
  const child = spawn(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${RESULTS_DIR}`, 'dist/main.js'], { cwd: gatewayDir, env, stdio: 'ignore' });
  try {
    await waitForPort(PROFILED_GATEWAY_PORT);
    await step('gateway GET /v1/balances under --cpu-prof', () => load(`http://127.0.0.1:${PROFILED_GATEWAY_PORT}`, signedRequests(credentials, '/v1/balances')));
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.on('close', resolve));
  }
}

/**
 * Replaces the stack's instances of `names` with ones started under --cpu-prof (same
 * environment and ports; Node 20 refuses --cpu-prof in NODE_OPTIONS) while `work` runs, then
 * stops them so each writes its profile to bench/results/cpu-orders-<name>/.
 */
async function withProfiledServices(profile, names, work) {
  const children = [];
  try {
    for (const name of names) {
      const service = services.SERVICES.find((candidate) => candidate.name === name);
      const pid = services.servicePid(profile, service);
      if (pid) await stopPid(pid);
      const dir = path.join(RESULTS_DIR, `cpu-orders-${name}`);
      const child = spawn(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, 'dist/main.js'], {
        cwd: path.join(REPO_ROOT, service.folder), env: services.serviceEnvironment(profile, service), stdio: 'ignore',
      });
      children.push(child);
      await waitForPort(services.grpcPort(profile, service));
    }
    return await work();
  } finally {
    for (const child of children) {
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.on('close', resolve)));
    }
  }
}

// ---------------------------------------------------------------- output

function printTable(rows) {
  const cells = rows.map((row) => {
    const ratio = typeof row.value === 'number' && typeof row.ceilingValue === 'number' && row.ceilingValue > 0
      ? (row.value / row.ceilingValue).toFixed(2) : '';
    return [row.figure, String(row.value), row.ceiling, String(row.ceilingValue), ratio];
  });
  const header = ['figure', 'value', 'ceiling', 'ceiling value', 'ratio'];
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((row) => row[column].length)));
  const line = (row) => row.map((cell, column) => (column === 0 || column === 2 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join('  ');
  console.log(`\n${line(header)}\n${widths.map((width) => '-'.repeat(width)).join('  ')}`);
  cells.forEach((row) => console.log(line(row)));
}

async function main() {
  const profile = loadProfile('test');
  mkdirSync(RESULTS_DIR, { recursive: true });
  const report = { ranAt: new Date().toISOString(), machineAtStart: machine(), slot: process.env.TEST_STACK_SLOT, sections: [...sections] };
  const rows = [];
  const needsStack = ['gateway', 'memory', 'ledger', 'orders'].some((name) => sections.has(name));
  if (needsStack) {
    const { stackFile, stop } = await stack(profile);
    try {
      if (sections.has('gateway') || sections.has('memory')) {
        const credentials = await gatewaySection(profile, stackFile, rows, report);
        if (process.env.BENCH_CPU_PROFILE === '1') await cpuProfile(profile, stackFile, credentials);
      }
      if (sections.has('memory')) memoryRows(report, rows);
      if (sections.has('ledger')) {
        report.ledger = await childBench('ledger.mjs', 'ledger-', { BENCH_STACK_FILE: stackFile });
        const { postgres } = JSON.parse(readFileSync(stackFile, 'utf8'));
        report.ledgerCeiling = await step('ledger ceiling: pgbench, entry shape', () => ledgerCeiling(postgres.urlTemplate, report.ledger.results[0].concurrency, durationS));
        ledgerRows(report.ledger, report.ledgerCeiling, rows);
      }
      if (sections.has('orders')) {
        const orders = () => childBench('orders.mjs', 'orders-', { BENCH_STACK_FILE: stackFile });
        report.orders = process.env.BENCH_CPU_PROFILE === '1' ? await withProfiledServices(profile, ['trading', 'ledger'], orders) : await orders();
        orderRows(report.orders, rows);
      }
    } finally {
      await stop();
    }
  }
  if (sections.has('webhooks')) {
    report.webhooks = await childBench('webhook-delivery.mjs', 'webhook-delivery-', {});
    webhookRows(report.webhooks, rows);
  }
  report.machineAtEnd = machine();
  report.rows = rows;
  printTable(rows);
  const file = path.join(RESULTS_DIR, `bench-${report.ranAt.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`\nmachine: ${report.machineAtStart.cpus} CPUs, ${report.machineAtStart.memoryGiB} GiB; load at start ${report.machineAtStart.load.load1}, at end ${report.machineAtEnd.load.load1}`);
  console.log(`written ${path.relative(process.cwd(), file)}`);
}

main().catch((error) => {
  console.error(`✘ ${error.stack ?? error.message}`);
  process.exitCode = 1;
});
