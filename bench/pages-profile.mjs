#!/usr/bin/env node
// Where a page of 100 events or statement lines spends its CPU: starts a test-profile stack in
// slot BENCH_STACK_SLOT (or uses BENCH_STACK_FILE's), gives a partner 100 sandbox credits (100
// credit.received events, 100 statement lines), then replaces the gateway, webhook-delivery and
// the ledger with instances under `node --cpu-prof` while autocannon reads GET /v1/events?limit=100
// and then the statement page, each for BENCH_DURATION_S. The profiles land in
// bench/results/cpu-orders-<service>/; rank them with bench/cpu-profile-top.mjs. An extra run
// for looking, never a measured figure (the profiler costs CPU of its own).
//   BENCH_STACK_SLOT=1 node bench/pages-profile.mjs
// BENCH_PAGES_MODE=cpu measures instead of profiling: the CPU every stack process spends per
// request (from /proc, robust to a busy machine, unlike requests per second), for
// GET /v1/orders/{id} and both pages interleaved, BENCH_ROUNDS rounds of BENCH_DURATION_S each,
// the median per process printed. BENCH_STACK_FILE=.stack-test-N/stack.json measures a running
// stack (restarted services and all) instead of starting one.
//   BENCH_PAGES_MODE=cpu BENCH_STACK_SLOT=1 node bench/pages-profile.mjs
// BENCH_PAGES_LOADS=reads measures (or profiles) the partner read path instead of the pages:
// signed GET /v1/orders/{id} and POST /v1/quotes, with the gateway and trading under --cpu-prof.
import { readdirSync, readFileSync } from 'node:fs';
import { continueOnPinnedNode } from '../scripts/lib/runtime.mjs';
import { loadProfile } from '../scripts/lib/profiles.mjs';
import { step } from '../scripts/lib/steps.mjs';
import { cannon } from './lib/ceilings.mjs';
import { autocannonRequests } from './lib/http.mjs';
import { boundedInt } from './lib/options.js';
import { quoteAndBuy } from './lib/load.mjs';
import { createBenchPartner } from './lib/partners.mjs';
import { clockTicksPerSecond, cpuMsBetween, cpuTicksSnapshot, parseStat } from './lib/proc.js';
import { withProfiledServices } from './lib/profiling.mjs';
import { startReceiver } from './lib/receiver.mjs';
import { openStack, stackProcesses } from './lib/stack.mjs';

process.env.TEST_STACK_SLOT = process.env.BENCH_STACK_SLOT ?? '9';
const PAGE_SIZE = 100;
const durationS = boundedInt(process.env, 'BENCH_DURATION_S', 10, 1, 300);
const connections = boundedInt(process.env, 'BENCH_CONNECTIONS', 32, 1, 512);
const rounds = boundedInt(process.env, 'BENCH_ROUNDS', 5, 1, 50);
const mode = process.env.BENCH_PAGES_MODE ?? 'profile';
const loads = process.env.BENCH_PAGES_LOADS ?? 'pages';
if (!['pages', 'reads'].includes(loads)) throw new Error(`BENCH_PAGES_LOADS must be pages or reads, not ${loads}`);
/** The quote each POST /v1/quotes asks for: the bench's order size. */
const QUOTE_BODY = { side: 'buy', kesAmount: '100.00' };
/** A profiled service starting on a busy machine (load 40 and more) can take a minute. */
const SERVICE_READY_TIMEOUT_MS = 90_000;

async function preparedPartner(stack, receiver) {
  const partner = await createBenchPartner({
    stackFile: stack.stackFile,
    gatewayUrl: stack.description.gatewayUrl,
    receiverUrl: receiver.url,
    // Its own name each run: a second run on a kept stack (BENCH_STACK_FILE) must not meet the first run's partner.
    name: `Bench pages profiled ${Date.now()}`,
  });
  // The read path needs no page to read: its partner gets only the order placed below.
  if (loads === 'reads') return { partner, account: null };
  for (let index = 0; index < PAGE_SIZE; index += 1)
    await partner.client.expect('POST', '/v1/sandbox/kes-credits', { amount: '1.00' }, 201);
  for (let tries = 0; ; tries += 1) {
    const page = await partner.client.get(`/v1/events?limit=${PAGE_SIZE}`);
    if (page.status === 200 && page.body.length === PAGE_SIZE) break;
    if (tries > 120) throw new Error('the events feed never served a full page');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const balances = await partner.client.get('/v1/balances');
  const account = balances.body.find((balance) => balance.currency === 'KES').accountId;
  return { partner, account };
}

const median = (values) => {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)];
};

/** The services whose threads and system calls are counted besides their CPU. */
const COUNTED_SERVICES = ['gateway', 'trading', 'webhook-delivery', 'ledger'];

/**
 * Counts of one Node process that hold on a busy machine: its main thread's CPU ticks and the
 * other threads' (V8's garbage-collection helpers, libuv's pool), its read and write system
 * calls (/proc/<pid>/io, every thread) and its main thread's voluntary context switches (each
 * a wake-up from epoll).
 */
function processCounts(pid) {
  const counts = { mainTicks: 0, otherTicks: 0, reads: 0, writes: 0, wakeUps: 0 };
  try {
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    counts.reads = Number(io.match(/^syscr: (\d+)$/m)[1]);
    counts.writes = Number(io.match(/^syscw: (\d+)$/m)[1]);
    counts.wakeUps = Number(
      readFileSync(`/proc/${pid}/status`, 'utf8').match(/^voluntary_ctxt_switches:\s+(\d+)$/m)[1],
    );
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const stat = parseStat(readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8'));
      counts[Number(task) === pid ? 'mainTicks' : 'otherTicks'] += stat.utime + stat.stime;
    }
  } catch {
    // Gone: counted as nothing.
  }
  return counts;
}

const countsSnapshot = (processes) =>
  Object.fromEntries(
    COUNTED_SERVICES.filter((name) => processes[name]).map((name) => [name, processCounts(processes[name])]),
  );

/** CPU ms of every stack process over `work`, how long it took, and the counted services' counts. */
async function cpuOver(processes, work) {
  const before = cpuTicksSnapshot(processes);
  const countsBefore = countsSnapshot(processes);
  const startedAt = performance.now();
  const result = await work();
  const elapsedMs = performance.now() - startedAt;
  const cpuMs = cpuMsBetween(before, cpuTicksSnapshot(processes), clockTicksPerSecond());
  const countsAfter = countsSnapshot(processes);
  const counts = Object.fromEntries(
    Object.entries(countsAfter).map(([name, after]) => [
      name,
      Object.fromEntries(Object.entries(after).map(([key, value]) => [key, value - countsBefore[name][key]])),
    ]),
  );
  return { result, elapsedMs, cpuMs, counts };
}

/**
 * CPU ms per request of every stack process over one load, less what the process spends
 * idle in the same time (its timers, pollers and positioner: `idleMsPerMs` from a quiet
 * interval of the same round), so a low rate on a busy machine does not inflate the figure.
 */
async function cpuPerRequest(processes, load, idleMsPerMs) {
  const { result: figure, elapsedMs, cpuMs, counts } = await cpuOver(processes, load);
  if (figure.non2xx > 0 || figure.errors > 0) throw new Error(`the load failed: ${JSON.stringify(figure)}`);
  const perRequest = Object.fromEntries(
    Object.entries(cpuMs).map(([name, ms]) => [
      name,
      Math.max(0, (ms ?? 0) - (idleMsPerMs[name] ?? 0) * elapsedMs) / figure.total,
    ]),
  );
  const ticksToMs = 1000 / clockTicksPerSecond();
  const countsPerRequest = Object.fromEntries(
    Object.entries(counts).map(([name, count]) => [
      name,
      {
        mainMs: (count.mainTicks * ticksToMs) / figure.total,
        otherMs: (count.otherTicks * ticksToMs) / figure.total,
        reads: count.reads / figure.total,
        writes: count.writes / figure.total,
        wakeUps: count.wakeUps / figure.total,
      },
    ]),
  );
  return { requests: figure.total, perRequest, countsPerRequest };
}

/** CPU ms per ms of every stack process with no load, over BENCH_DURATION_S. */
async function idleRate(processes) {
  const { elapsedMs, cpuMs } = await cpuOver(
    processes,
    () => new Promise((resolve) => setTimeout(resolve, durationS * 1000)),
  );
  return Object.fromEntries(Object.entries(cpuMs).map(([name, ms]) => [name, (ms ?? 0) / elapsedMs]));
}

/** The interleaved measurement of BENCH_PAGES_MODE=cpu: medians per process and load, printed. */
async function measureCpu(stack, load, paths) {
  const processes = await stackProcesses(stack.profile);
  const samples = Object.fromEntries(Object.keys(paths).map((name) => [name, []]));
  // One uncounted load of each first: a service just (re)started spends its first requests compiling.
  for (const [name, path] of Object.entries(paths)) await step(`warm-up: ${name}`, () => load(path));
  for (let round = 0; round < rounds; round += 1) {
    const idle = await step(`round ${round + 1}: idle`, () => idleRate(processes));
    for (const [name, path] of Object.entries(paths))
      samples[name].push(
        await step(`round ${round + 1}: ${name}`, () => cpuPerRequest(processes, () => load(path), idle)),
      );
  }
  for (const [name, measured] of Object.entries(samples)) {
    const byProcess = Object.keys(processes).map((process) => [
      process,
      median(measured.map((sample) => sample.perRequest[process])),
    ]);
    const total = median(
      measured.map((sample) => Object.values(sample.perRequest).reduce((sum, value) => sum + value, 0)),
    );
    const shown = byProcess
      .filter(([, ms]) => ms >= 0.05)
      .sort((left, right) => right[1] - left[1])
      .map(([process, ms]) => `${process} ${ms.toFixed(2)}`);
    const requests = measured.map((sample) => sample.requests).join('/');
    console.log(`${name}: CPU ms per request ${total.toFixed(2)} (${shown.join(', ')}); requests ${requests}`);
    // Not idle-subtracted: counts of the busiest services, medians per request.
    for (const service of COUNTED_SERVICES) {
      const of = (key) => median(measured.map((sample) => sample.countsPerRequest[service]?.[key] ?? 0));
      if (of('mainMs') + of('otherMs') < 0.05) continue;
      console.log(
        `  ${service}: main thread ${of('mainMs').toFixed(3)} ms, other threads ${of('otherMs').toFixed(3)} ms, ` +
          `reads ${of('reads').toFixed(2)}, writes ${of('writes').toFixed(2)}, wake-ups ${of('wakeUps').toFixed(2)} per request`,
      );
    }
  }
}

async function main() {
  await continueOnPinnedNode();
  const stack = await openStack(loadProfile('test'));
  const receiver = await startReceiver(stack.description.tlsDir);
  try {
    const { partner, account } = await step('partner (with 100 credits for the pages)', () =>
      preparedPartner(stack, receiver),
    );
    // A path is a GET; `POST <path>` is a POST of the bench's quote.
    const load = (target) => {
      const [method, path] = target.startsWith('POST ') ? ['POST', target.slice(5)] : ['GET', target];
      const body = method === 'POST' ? QUOTE_BODY : undefined;
      return cannon(
        stack.description.gatewayUrl,
        autocannonRequests([{ credentials: partner.credentials, path }], method, body),
        { connections, durationS },
      );
    };
    const placed = await step('an order to read', () => quoteAndBuy(partner.client));
    if (placed.failure) throw new Error(`an order to read could not be placed: ${placed.failure}`);
    const orderRead = `/v1/orders/${placed.orderId}`;
    const targets =
      loads === 'reads'
        ? { 'GET /v1/orders/{id}': orderRead, 'POST /v1/quotes': 'POST /v1/quotes' }
        : {
            'GET /v1/orders/{id}': orderRead,
            // A page of one: the same path with ~1/100 of the bytes, so the difference is what a page's size costs.
            'events page of 1': '/v1/events?limit=1',
            'events page of 100': `/v1/events?limit=${PAGE_SIZE}`,
            'statement page of 100': `/v1/balances/${account}/transactions?limit=${PAGE_SIZE}`,
          };
    if (mode === 'cpu') {
      await measureCpu(stack, load, targets);
      return;
    }
    const ctx = { profile: stack.profile };
    // Every load, the order read and the page of one too: each process's part of a page over them is what
    // a page's size costs. Each load's CLOCK_MONOTONIC window is printed for cpu-profile-top.mjs --window.
    const profiled = async () => {
      for (const [name, target] of Object.entries(targets)) {
        const fromUs = process.hrtime.bigint() / 1000n;
        const figure = await step(`${name} under --cpu-prof`, () => load(target));
        const toUs = process.hrtime.bigint() / 1000n;
        console.log(`${name}: ${figure.total} requests, --window=${fromUs}-${toUs} --per=${figure.total}`);
      }
    };
    const profiledServices = loads === 'reads' ? ['gateway', 'trading'] : ['gateway', 'webhook-delivery', 'ledger'];
    await withProfiledServices(ctx, profiledServices, profiled, { readyTimeoutMs: SERVICE_READY_TIMEOUT_MS });
  } finally {
    await receiver.close();
    await stack.stop();
  }
}

main().catch((error) => {
  console.error(`✘ ${error.stack ?? error.message}`);
  process.exitCode = 1;
});
