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
import { continueOnPinnedNode } from '../scripts/lib/runtime.mjs';
import { loadProfile } from '../scripts/lib/profiles.mjs';
import { step } from '../scripts/lib/steps.mjs';
import { cannon } from './lib/ceilings.mjs';
import { autocannonRequests } from './lib/http.mjs';
import { boundedInt } from './lib/options.js';
import { quoteAndBuy } from './lib/load.mjs';
import { createBenchPartner } from './lib/partners.mjs';
import { clockTicksPerSecond, cpuMsBetween, cpuTicksSnapshot } from './lib/proc.js';
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

/** CPU ms of every stack process over `work`, and how long it took. */
async function cpuOver(processes, work) {
  const before = cpuTicksSnapshot(processes);
  const startedAt = performance.now();
  const result = await work();
  const elapsedMs = performance.now() - startedAt;
  const cpuMs = cpuMsBetween(before, cpuTicksSnapshot(processes), clockTicksPerSecond());
  return { result, elapsedMs, cpuMs };
}

/**
 * CPU ms per request of every stack process over one load, less what the process spends
 * idle in the same time (its timers, pollers and positioner: `idleMsPerMs` from a quiet
 * interval of the same round), so a low rate on a busy machine does not inflate the figure.
 */
async function cpuPerRequest(processes, load, idleMsPerMs) {
  const { result: figure, elapsedMs, cpuMs } = await cpuOver(processes, load);
  if (figure.non2xx > 0 || figure.errors > 0) throw new Error(`the load failed: ${JSON.stringify(figure)}`);
  const perRequest = Object.fromEntries(
    Object.entries(cpuMs).map(([name, ms]) => [
      name,
      Math.max(0, (ms ?? 0) - (idleMsPerMs[name] ?? 0) * elapsedMs) / figure.total,
    ]),
  );
  return { requests: figure.total, perRequest };
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
    const profiledNames = Object.keys(targets).filter((name) => loads === 'reads' || name.includes('page of 100'));
    const profiled = async () => {
      for (const name of profiledNames) console.log(await step(`${name} under --cpu-prof`, () => load(targets[name])));
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
