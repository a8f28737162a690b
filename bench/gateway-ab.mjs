#!/usr/bin/env node
// Before/after of the partner read path's own CPU, interleaved: two builds of the gateway and of
// trading run side by side beside one test stack (same environment and Node flags, own ports;
// each gateway calls its own trading, both use the stack's PostgreSQL, Redis and other services),
// and the same signed loads go to each in alternating order, round after round, with a bare
// express hello-world (the bench's ceiling) receiving the same signed requests in every round.
// On a machine others load, one run a side says nothing; rounds of each build minutes apart
// meet the same load, and what compares is each round's CPU per request and its ratio to the
// express of the same round. Count-based beside the CPU: Redis reads a request, and the WAL bytes
// PostgreSQL wrote a request (pg_current_wal_lsn over the load: the whole cluster, exact, unlike
// the statistics views, which reach their counters up to a second late).
//
// Builds: `base` is a copy of the built tree made before a change (AB_BASE_DIR: a folder holding
// libs/*, proto and services/{gateway,trading} with their dist and package.json, and
// node_modules/@platform/* linking to them, kept under the repository so third-party packages
// resolve the same); `new` is this checkout's build. Per round and build: signed GET /v1/health,
// GET /v1/orders/{id} and POST /v1/quotes (autocannon, AB_CONNECTIONS connections, AB_DURATION_S
// each, every request freshly signed, spread over AB_PARTNERS partners), CPU from /proc of each
// build's gateway and trading and of the stack's PostgreSQL and Redis, the idle rate of each
// process over the same round subtracted. Prints each round, then per load the medians and the
// median of the paired new ÷ base ratios.
//   BENCH_STACK_SLOT=7 AB_BASE_DIR=bench/results/gw16/base node bench/gateway-ab.mjs
//   AB_PORT_OFFSET=200 …   # its processes on ports 24170–24185 rather than 23970–23985
//   AB_PROFILE=new …   # that build's gateway and trading under --cpu-prof (bench/results/ab-<build>-<service>/)
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { continueOnPinnedNode } from '../scripts/lib/runtime.mjs';
import { loadProfile, REPO_ROOT } from '../scripts/lib/profiles.mjs';
import { step } from '../scripts/lib/steps.mjs';
import { cannon, waitForPort } from './lib/ceilings.mjs';
import { autocannonRequests } from './lib/http.mjs';
import { boundedInt } from './lib/options.js';
import { quoteAndBuy } from './lib/load.mjs';
import { createBenchPartner, ORDER_KES } from './lib/partners.mjs';
import { clockTicksPerSecond, cpuMsBetween, cpuTicksSnapshot } from './lib/proc.js';
import { RESULTS_DIR } from './lib/child-bench.mjs';
import { startReceiver } from './lib/receiver.mjs';
import { openStack, services, stackProcesses } from './lib/stack.mjs';

process.env.TEST_STACK_SLOT = process.env.BENCH_STACK_SLOT ?? '9';
const require = createRequire(import.meta.url);
const { Redis } = require(require.resolve('ioredis', { paths: [path.join(REPO_ROOT, 'services', 'gateway')] }));
const { Client } = require('pg');
const durationS = boundedInt(process.env, 'AB_DURATION_S', 5, 1, 60);
const connections = boundedInt(process.env, 'AB_CONNECTIONS', 32, 1, 256);
const rounds = boundedInt(process.env, 'AB_ROUNDS', 6, 1, 40);
const partnerCount = boundedInt(process.env, 'AB_PARTNERS', 8, 1, 32);
const loadNames = (process.env.AB_LOADS ?? 'health,read,quote').split(',');
const profiled = process.env.AB_PROFILE ?? '';
/** A service starting on a busy machine can take a minute. */
const READY_TIMEOUT_MS = 90_000;
/**
 * Ports of the ad-hoc processes, away from the bench's ceilings (23901–23905); AB_PORT_OFFSET
 * (a multiple of 100 is simplest) moves them all, so runs from several checkouts do not collide.
 */
const portOffset = boundedInt(process.env, 'AB_PORT_OFFSET', 0, 0, 1000);
const PORTS = {
  express: 23970 + portOffset,
  base: portsFrom(23971 + portOffset),
  new: portsFrom(23981 + portOffset),
};

function portsFrom(first) {
  return {
    http: first,
    gatewayGrpc: first + 1,
    gatewayMetrics: first + 2,
    tradingGrpc: first + 3,
    tradingMetrics: first + 4,
  };
}

const baseDir = process.env.AB_BASE_DIR ? path.resolve(process.env.AB_BASE_DIR) : null;
if (!baseDir || !existsSync(path.join(baseDir, 'services', 'gateway', 'dist', 'main.js')))
  throw new Error('AB_BASE_DIR must name a copy of the built tree (services/gateway/dist/main.js in it)');
const BUILDS = { base: baseDir, new: REPO_ROOT };

const closed = (child) => new Promise((resolve) => (child.exitCode !== null ? resolve() : child.on('close', resolve)));
const median = (values) => [...values].sort((left, right) => left - right)[Math.floor(values.length / 2)];

/** One service of a build on its own ports (`overrides`), under --cpu-prof when AB_PROFILE names the build. */
async function startService(profile, build, name, overrides, readyPort) {
  const service = services.serviceNamed(name);
  const flags =
    profiled === build ? ['--cpu-prof', `--cpu-prof-dir=${path.join(RESULTS_DIR, `ab-${build}-${name}`)}`] : [];
  const child = spawn(process.execPath, [...flags, 'dist/main.js'], {
    cwd: path.join(BUILDS[build], service.folder),
    env: { ...services.serviceEnvironment(profile, service), ...overrides },
    stdio: 'ignore',
  });
  await waitForPort(readyPort, READY_TIMEOUT_MS);
  return child;
}

/** One build's trading and gateway on their own ports, the gateway calling that trading. */
async function startBuild(profile, build) {
  const ports = PORTS[build];
  const trading = await startService(
    profile,
    build,
    'trading',
    { GRPC_PORT: String(ports.tradingGrpc), METRICS_PORT: String(ports.tradingMetrics) },
    ports.tradingGrpc,
  );
  const gateway = await startService(
    profile,
    build,
    'gateway',
    {
      HTTP_PORT: String(ports.http),
      GRPC_PORT: String(ports.gatewayGrpc),
      METRICS_PORT: String(ports.gatewayMetrics),
      TRADING_GRPC_ADDR: `127.0.0.1:${ports.tradingGrpc}`,
    },
    ports.http,
  );
  return { url: `http://127.0.0.1:${ports.http}`, children: { gateway, trading } };
}

function startExpress() {
  const source = `const app = require('express')(); app.all('*splat', (req, res) => res.json({ status: 'ok' })); app.listen(${PORTS.express}, '127.0.0.1');`;
  return spawn(process.execPath, ['-e', source], { cwd: path.join(REPO_ROOT, 'services', 'gateway'), stdio: 'ignore' });
}

/** CPU ms per ms of each process with no load. */
async function idleRates(processes) {
  const before = cpuTicksSnapshot(processes);
  const startedAt = performance.now();
  await new Promise((resolve) => setTimeout(resolve, durationS * 1000));
  const elapsedMs = performance.now() - startedAt;
  const cpuMs = cpuMsBetween(before, cpuTicksSnapshot(processes), clockTicksPerSecond());
  return Object.fromEntries(Object.entries(cpuMs).map(([name, ms]) => [name, (ms ?? 0) / elapsedMs]));
}

/** Redis' own counts of socket reads and commands (INFO stats): how many commands each read carried. */
async function redisCounts(redis) {
  const text = await redis.info('stats');
  const read = (name) => Number(text.match(new RegExp(`^${name}:(\\d+)`, 'm'))?.[1] ?? NaN);
  return { reads: read('total_reads_processed'), commands: read('total_commands_processed') };
}

/** The cluster's current WAL position, as a byte count (pg_lsn arithmetic in PostgreSQL). */
async function walBytes(postgres) {
  const { rows } = await postgres.query(`SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text AS bytes`);
  return Number(rows[0].bytes);
}

/** One load: req/s and CPU ms per request of each process, its idle rate subtracted; Redis reads and WAL bytes per request. */
async function measuredLoad(url, requests, processes, idle, redis, postgres) {
  const walBefore = await walBytes(postgres);
  const redisBefore = await redisCounts(redis);
  const before = cpuTicksSnapshot(processes);
  const startedAt = performance.now();
  const figure = await cannon(url, requests, { connections, durationS });
  const elapsedMs = performance.now() - startedAt;
  const cpuMs = cpuMsBetween(before, cpuTicksSnapshot(processes), clockTicksPerSecond());
  if (figure.non2xx > 0 || figure.errors > 0) throw new Error(`the load failed: ${JSON.stringify(figure)}`);
  const redisAfter = await redisCounts(redis);
  const walAfter = await walBytes(postgres);
  const perRequest = Object.fromEntries(
    Object.entries(cpuMs).map(([name, ms]) => [
      name,
      Math.max(0, (ms ?? 0) - (idle[name] ?? 0) * elapsedMs) / figure.total,
    ]),
  );
  return {
    requestsPerSecond: figure.requestsPerSecond,
    perRequest,
    redisReadsPerRequest: (redisAfter.reads - redisBefore.reads) / figure.total,
    walBytesPerRequest: (walAfter - walBefore) / figure.total,
  };
}

async function main() {
  await continueOnPinnedNode();
  const stack = await openStack(loadProfile('test'));
  const receiver = await startReceiver(stack.description.tlsDir);
  const started = [];
  const redis = new Redis(services.redisUrl(stack.profile));
  const postgres = new Client({
    connectionString: stack.description.postgres.urlTemplate.replace('{database}', 'postgres'),
  });
  try {
    await postgres.connect();
    const gatewayUrl = stack.description.gatewayUrl;
    const partners = [];
    for (let index = 0; index < partnerCount; index += 1)
      partners.push(
        await step(`partner ${index + 1}`, () =>
          createBenchPartner({
            stackFile: stack.stackFile,
            gatewayUrl,
            receiverUrl: receiver.url,
            name: `Bench gateway A/B ${Date.now()} ${index}`,
          }),
        ),
      );
    const orders = [];
    for (const partner of partners) {
      const placed = await quoteAndBuy(partner.client);
      if (placed.failure) throw new Error(`an order to read could not be placed: ${placed.failure}`);
      orders.push(placed.orderId);
    }
    const senders = (pathOf) =>
      partners.map((partner, index) => ({ credentials: partner.credentials, path: pathOf(index) }));
    const LOADS = {
      health: autocannonRequests(
        senders(() => '/v1/health'),
        'GET',
      ),
      read: autocannonRequests(
        senders((index) => `/v1/orders/${orders[index]}`),
        'GET',
      ),
      quote: autocannonRequests(
        senders(() => '/v1/quotes'),
        'POST',
        { side: 'buy', kesAmount: ORDER_KES },
      ),
    };
    const builds = {};
    for (const build of ['base', 'new']) {
      builds[build] = await step(`${build} build started`, () => startBuild(stack.profile, build));
      started.push(...Object.values(builds[build].children));
    }
    const express = startExpress();
    started.push(express);
    await waitForPort(PORTS.express);
    const stackPids = await stackProcesses(stack.profile);
    const processes = {
      'base gateway': builds.base.children.gateway.pid,
      'base trading': builds.base.children.trading.pid,
      'new gateway': builds.new.children.gateway.pid,
      'new trading': builds.new.children.trading.pid,
      postgresql: stackPids.postgresql,
      redis: stackPids.redis,
      express: express.pid,
    };
    // Uncounted: a process just started spends its first thousands of requests compiling.
    for (const build of ['base', 'new'])
      for (const name of loadNames)
        await step(`warm-up: ${build} ${name}`, () =>
          cannon(builds[build].url, LOADS[name], { connections, durationS }),
        );
    const samples = [];
    for (let round = 0; round < rounds; round += 1) {
      const idle = await idleRates(processes);
      const order = round % 2 === 0 ? ['base', 'new'] : ['new', 'base'];
      const ceiling = await measuredLoad(
        `http://127.0.0.1:${PORTS.express}`,
        LOADS.health,
        processes,
        idle,
        redis,
        postgres,
      );
      const sample = { round: round + 1, expressPerSecond: ceiling.requestsPerSecond, loads: {} };
      for (const name of loadNames) {
        sample.loads[name] = {};
        for (const build of order) {
          const figure = await measuredLoad(builds[build].url, LOADS[name], processes, idle, redis, postgres);
          const own = (process) => figure.perRequest[`${build} ${process}`];
          sample.loads[name][build] = {
            ratio: figure.requestsPerSecond / ceiling.requestsPerSecond,
            requestsPerSecond: figure.requestsPerSecond,
            gateway: own('gateway'),
            trading: own('trading'),
            postgresql: figure.perRequest.postgresql,
            redis: figure.perRequest.redis,
            redisReads: figure.redisReadsPerRequest,
            walBytes: figure.walBytesPerRequest,
          };
        }
      }
      samples.push(sample);
      const loadavg = (await import('node:os'))
        .loadavg()
        .map((value) => value.toFixed(2))
        .join(' / ');
      console.log(`round ${round + 1} (load ${loadavg}), express ${ceiling.requestsPerSecond} req/s`);
      for (const name of loadNames)
        for (const build of ['base', 'new']) {
          const figure = sample.loads[name][build];
          console.log(
            `  ${name.padEnd(6)} ${build.padEnd(4)} ${String(figure.requestsPerSecond).padStart(6)} req/s ÷ express ${figure.ratio.toFixed(3)}; CPU ms: gateway ${figure.gateway.toFixed(3)} trading ${figure.trading.toFixed(3)} postgresql ${figure.postgresql.toFixed(3)} redis ${figure.redis.toFixed(3)}; Redis reads a request ${figure.redisReads.toFixed(2)}; WAL bytes a request ${figure.walBytes.toFixed(0)}`,
          );
        }
    }
    console.log("\nmedians over the rounds (paired new ÷ base: the median of each round's ratio)");
    for (const name of loadNames) {
      for (const field of ['ratio', 'gateway', 'trading', 'postgresql', 'redis', 'redisReads', 'walBytes']) {
        const of = (build) => samples.map((sample) => sample.loads[name][build][field]);
        const paired = samples.map((sample) => sample.loads[name].new[field] / sample.loads[name].base[field]);
        console.log(
          `  ${name.padEnd(6)} ${field.padEnd(8)} base ${median(of('base')).toFixed(3)} new ${median(of('new')).toFixed(3)} paired new ÷ base ${median(paired).toFixed(3)} (${paired.filter((value) => value < 1).length} of ${paired.length} rounds below 1)`,
        );
      }
    }
  } finally {
    for (const child of started) child.kill('SIGTERM');
    await Promise.all(started.map(closed));
    redis.disconnect();
    await postgres.end().catch(() => {});
    await receiver.close();
    await stack.stop();
  }
}

main().catch((error) => {
  console.error(`✘ ${error.stack ?? error.message}`);
  process.exitCode = 1;
});
