#!/usr/bin/env node
// What the gateway's resident memory is made of under the bench's gateway loads, and what a
// change of its runtime settings does to it and to its CPU per request.
//
// Starts the bench's own test-profile stack in slot BENCH_STACK_SLOT (or uses
// BENCH_STACK_FILE's), prepares the gateway section's partners, orders and full pages, then,
// round after round, runs each variant as an extra gateway process (the stack's environment
// and Node flags, own ports, plus the variant's variables) through the section's loads in its
// order: signed health, balances, orders/{id}, quotes, orders/{id} at half its rate, a page of
// 100 events, a statement page of 100 lines (BENCH_CONNECTIONS connections, BENCH_DURATION_S
// each). Every 250 ms it reads the process's VmRSS, RssAnon and RssFile from /proc, and the
// process itself (bench/lib/memory-probe.js, preloaded) writes its heap by space, external
// and array-buffer memory. Per load: requests, the gateway's CPU ms per request, the resident
// peak and what it was made of at that sample.
//
//   BENCH_STACK_SLOT=8 MEMORY_VARIANTS='{"now":{},"arenas2":{"MALLOC_ARENA_MAX":"2"}}' \
//     MEMORY_ROUNDS=2 node bench/gateway-memory.mjs
//   AB_PORT_OFFSET=200 …   # its gateways on ports 24111 and up rather than 23911 and up
//
// A variant is the environment it adds ({} = the stack's own; a null value removes one of the
// stack's variables); NODE_OPTIONS in it replaces the stack's flags. NODE_ARGS in it is not
// passed on as a variable but put on node's command line, for V8 flags Node refuses in
// NODE_OPTIONS (e.g. '{"fixed8":{"NODE_ARGS":"--min-semi-space-size=8 --max-semi-space-size=8"}}').
// Variants run in turn within a round, so the machine's load falls on each alike. Results:
// bench/results/gateway-memory-<time>.json and a table on stdout.
import { spawn } from 'node:child_process';
import { mkdirSync, openSync, readFileSync, closeSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadProfile, REPO_ROOT } from '../scripts/lib/profiles.mjs';
import { sleep } from '../scripts/lib/processes.mjs';
import { step } from '../scripts/lib/steps.mjs';
import { continueOnPinnedNode } from '../scripts/lib/runtime.mjs';
import { cannon, waitForPort } from './lib/ceilings.mjs';
import { RESULTS_DIR } from './lib/child-bench.mjs';
import { autocannonRequests, keepAliveAgent, PartnerClient } from './lib/http.mjs';
import { quoteAndBuy } from './lib/load.mjs';
import { boundedInt } from './lib/options.js';
import { createBenchPartner, ORDER_KES } from './lib/partners.mjs';
import { clockTicksPerSecond, cpuMsBetween, cpuTicksSnapshot } from './lib/proc.js';
import { startReceiver } from './lib/receiver.mjs';
import { percentile } from './lib/stats.js';
import { openStack, services } from './lib/stack.mjs';
import { creditsForPages, feedFull, kesAccountOf, PAGE_SIZE, PARTNERS } from './sections/gateway.mjs';

await continueOnPinnedNode();

process.env.TEST_STACK_SLOT = process.env.BENCH_STACK_SLOT ?? '9';
process.env.STACK_ENV_QUOTE_TTL_MS ??= '600000';

/**
 * The measured gateway's ports (the range left for ad-hoc servers; the profiled gateway uses
 * 23903–23905). AB_PORT_OFFSET moves them, as in gateway-ab.mjs, so runs from several checkouts
 * do not collide.
 */
const checkoutPortOffset = boundedInt(process.env, 'AB_PORT_OFFSET', 0, 0, 1000);
const PORTS = {
  http: 23911 + checkoutPortOffset,
  grpc: 23912 + checkoutPortOffset,
  metrics: 23913 + checkoutPortOffset,
};
/** Each gateway of an alternating CPU run listens this far from the previous one. */
const PORT_OFFSET_STEP = 3;
const SAMPLE_INTERVAL_MS = 250;
/** Requests of one client in sequence before the loads, as the interleaved runs did: code loaded, caches warm. */
const WARM_UP_REQUESTS = 20;
/** Idle memory is read this long after the warm-up. */
const IDLE_SETTLE_MS = 2_000;
const READY_TIMEOUT_MS = 60_000;
const KIB = 1024;
const MIB = 1024 * 1024;

const env = process.env;
const connections = boundedInt(env, 'BENCH_CONNECTIONS', 32, 1, 512);
const durationS = boundedInt(env, 'BENCH_DURATION_S', 10, 1, 300);
const rounds = boundedInt(env, 'MEMORY_ROUNDS', 2, 1, 20);
const variants = Object.entries(JSON.parse(env.MEMORY_VARIANTS ?? '{"now":{}}'));
const probe = path.join(REPO_ROOT, 'bench', 'lib', 'memory-probe.js');

/** VmRSS, VmHWM, RssAnon, RssFile (KiB) and the thread count from /proc/<pid>/status; null once gone. */
function statusOf(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? NaN);
    return {
      rssKiB: field('VmRSS'),
      hwmKiB: field('VmHWM'),
      anonKiB: field('RssAnon'),
      fileKiB: field('RssFile'),
      threads: field('Threads'),
    };
  } catch {
    return null;
  }
}

/** Anonymous resident memory by kind of mapping, from /proc/<pid>/smaps (KiB). */
function anonymousMappings(pid) {
  const totals = { brkHeap: 0, arenaLike: 0, other: 0, arenaCount: 0 };
  let current = null;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ (\d+)\s*(.*)$/.exec(line);
    if (head) {
      const start = BigInt(`0x${head[1]}`);
      const end = BigInt(`0x${head[2]}`);
      current = { name: head[5].trim(), inode: head[4], sizeKiB: Number((end - start) / 1024n), start };
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (!rss || !current) continue;
    const kib = Number(rss[1]);
    if (current.name === '[heap]') totals.brkHeap += kib;
    else if (current.name === '' && current.inode === '0') {
      // glibc's non-main arenas are 64 MiB-aligned heaps (HEAP_MAX_SIZE on 64-bit).
      if (current.start % (64n * 1024n * 1024n) === 0n && kib > 0) {
        totals.arenaLike += kib;
        totals.arenaCount += 1;
      } else totals.other += kib;
    }
  }
  return totals;
}

function readProbe(file) {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

const nearest = (samples, atMs) =>
  samples.reduce(
    (best, sample) => (!best || Math.abs(sample.atMs - atMs) < Math.abs(best.atMs - atMs) ? sample : best),
    null,
  );

/** The section's partners, orders and pages; the loads a gateway at `url` is put through. */
async function prepare(stack, receiver) {
  const partners = [];
  for (let index = 0; index < PARTNERS; index += 1)
    partners.push(
      await step(`partner ${index + 1}`, () =>
        createBenchPartner({
          stackFile: stack.stackFile,
          gatewayUrl: stack.description.gatewayUrl,
          receiverUrl: receiver.url,
          name: `Memory reads ${index + 1}`,
        }),
      ),
    );
  const orderIds = [];
  for (const partner of partners) {
    const placed = await quoteAndBuy(partner.client);
    if (placed.failure) throw new Error(`an order to read could not be placed: ${placed.failure}`);
    orderIds.push(placed.orderId);
  }
  await step(`${PAGE_SIZE} credits per partner`, () => Promise.all(partners.map(creditsForPages)));
  await step('events feed numbered', () => Promise.all(partners.map(feedFull)));
  const accounts = await Promise.all(partners.map(kesAccountOf));
  const senders = (pathOf) =>
    partners.map((partner, index) => ({ credentials: partner.credentials, path: pathOf(index) }));
  return {
    partners,
    loads: [
      [
        'health',
        autocannonRequests(
          senders(() => '/v1/health'),
          'GET',
        ),
      ],
      [
        'balances',
        autocannonRequests(
          senders(() => '/v1/balances'),
          'GET',
        ),
      ],
      [
        'orders/{id}',
        autocannonRequests(
          senders((index) => `/v1/orders/${orderIds[index]}`),
          'GET',
        ),
      ],
      [
        'quotes',
        autocannonRequests(
          senders(() => '/v1/quotes'),
          'POST',
          { side: 'buy', kesAmount: ORDER_KES },
        ),
      ],
      ['orders/{id} half', null],
      [
        'events page',
        autocannonRequests(
          senders(() => `/v1/events?limit=${PAGE_SIZE}`),
          'GET',
        ),
      ],
      [
        'statement page',
        autocannonRequests(
          senders((index) => `/v1/balances/${accounts[index]}/transactions?limit=${PAGE_SIZE}`),
          'GET',
        ),
      ],
    ],
  };
}

async function startGateway(stack, name, { NODE_ARGS: nodeArgs = '', ...variant }, runDir, portOffset = 0) {
  const service = services.SERVICES.find((entry) => entry.name === 'gateway');
  const probeFile = path.join(runDir, `${name}.probe.jsonl`);
  const out = openSync(path.join(runDir, `${name}.log`), 'a');
  const environment = {
    ...services.serviceEnvironment(stack.profile, service),
    HTTP_PORT: String(PORTS.http + portOffset),
    GRPC_PORT: String(PORTS.grpc + portOffset),
    METRICS_PORT: String(PORTS.metrics + portOffset),
    MEMORY_PROBE_FILE: probeFile,
    ...variant,
  };
  // A variant's null removes the stack's variable (a runtime setting measured without it).
  for (const [key, value] of Object.entries(variant)) if (value === null) delete environment[key];
  const child = spawn(process.execPath, [...nodeArgs.split(' ').filter(Boolean), '--require', probe, 'dist/main.js'], {
    cwd: path.join(REPO_ROOT, service.folder),
    env: environment,
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  await waitForPort(PORTS.http + portOffset, READY_TIMEOUT_MS);
  return { child, probeFile };
}

async function stopGateway(child) {
  if (child.exitCode !== null) return;
  const closed = new Promise((resolve) => child.on('close', resolve));
  child.kill('SIGTERM');
  await closed;
}

/** One variant's gateway through every load; its figures. */
async function measureVariant(stack, prepared, name, variant, runDir) {
  const url = `http://127.0.0.1:${PORTS.http}`;
  const { child, probeFile } = await startGateway(stack, name, variant, runDir);
  const pid = child.pid;
  const samples = [];
  let phase = 'warm-up';
  const timer = setInterval(() => {
    const status = statusOf(pid);
    if (status) samples.push({ atMs: Date.now(), phase, ...status });
  }, SAMPLE_INTERVAL_MS);
  const phases = [];
  try {
    const client = new PartnerClient(url, prepared.partners[0].credentials, keepAliveAgent(1));
    for (let index = 0; index < WARM_UP_REQUESTS; index += 1) await client.expect('GET', '/v1/health', undefined, 200);
    await sleep(IDLE_SETTLE_MS);
    const idle = { ...statusOf(pid), atMs: Date.now() };
    let orderRate = 1;
    for (const [load, requests] of prepared.loads) {
      phase = load;
      const half = requests === null;
      const before = cpuTicksSnapshot({ gateway: pid });
      const figure = await cannon(url, half ? prepared.loads[2][1] : requests, {
        connections,
        durationS,
        ...(half ? { overallRate: Math.max(1, Math.round(orderRate / 2)) } : {}),
      });
      const cpuMs = cpuMsBetween(before, cpuTicksSnapshot({ gateway: pid }), clockTicksPerSecond()).gateway;
      if (load === 'orders/{id}') orderRate = figure.requestsPerSecond;
      phases.push({
        load,
        requests: figure.total,
        requestsPerSecond: figure.requestsPerSecond,
        failed: figure.non2xx + figure.errors,
        cpuMsPerRequest: figure.total > 0 ? cpuMs / figure.total : null,
        mappings: anonymousMappings(pid),
      });
    }
    phase = 'after';
    await sleep(SAMPLE_INTERVAL_MS * 2);
    return { idle, phases, samples, hwmKiB: statusOf(pid)?.hwmKiB, probeFile };
  } finally {
    clearInterval(timer);
    await stopGateway(child);
  }
}

/** Per load: the resident peak (VmRSS sampled) and what it was made of at that moment. */
function breakdown(result) {
  const probes = readProbe(result.probeFile);
  return result.phases.map((phase) => {
    const inPhase = result.samples.filter((sample) => sample.phase === phase.load);
    const peak = inPhase.reduce((best, sample) => (!best || sample.rssKiB > best.rssKiB ? sample : best), null);
    const inside = peak ? nearest(probes, peak.atMs) : null;
    const mib = (bytes) => (bytes === undefined || bytes === null ? null : Number((bytes / MIB).toFixed(1)));
    const spaces = inside?.spaces ?? {};
    return {
      ...phase,
      peakRssMiB: peak ? Number((peak.rssKiB / KIB).toFixed(1)) : null,
      peakAnonMiB: peak ? Number((peak.anonKiB / KIB).toFixed(1)) : null,
      peakFileMiB: peak ? Number((peak.fileKiB / KIB).toFixed(1)) : null,
      threads: peak?.threads ?? null,
      heapPhysicalMiB: mib(inside?.heapPhysical),
      heapUsedMiB: mib(inside?.heapUsed),
      newSpaceMiB: mib(spaces.new_space?.physical),
      oldSpaceMiB: mib(spaces.old_space?.physical),
      codeSpaceMiB: mib(spaces.code_space?.physical),
      largeObjectMiB: mib(spaces.large_object_space?.physical),
      externalMiB: mib(inside?.external),
      arrayBuffersMiB: mib(inside?.arrayBuffers),
      mallocedMiB: mib(inside?.mallocedMemory),
      // Anonymous resident memory that is neither V8's heap nor what Node counts as external.
      anonOutsideHeapMiB:
        peak && inside ? Number(((peak.anonKiB * KIB - inside.heapPhysical - inside.external) / MIB).toFixed(1)) : null,
    };
  });
}

function printRun(name, round, result, loads) {
  const idle = result.idle;
  console.log(
    `\n${name}, round ${round}: idle VmRSS ${(idle.rssKiB / KIB).toFixed(1)} MiB (anon ${(idle.anonKiB / KIB).toFixed(1)}, file ${(idle.fileKiB / KIB).toFixed(1)}), VmHWM at end ${(result.hwmKiB / KIB).toFixed(1)} MiB`,
  );
  console.table(
    loads.map((row) => ({
      load: row.load,
      'req/s': row.requestsPerSecond,
      failed: row.failed,
      'cpu ms/req': row.cpuMsPerRequest?.toFixed(3),
      'peak rss': row.peakRssMiB,
      anon: row.peakAnonMiB,
      file: row.peakFileMiB,
      'heap phys': row.heapPhysicalMiB,
      'heap used': row.heapUsedMiB,
      new: row.newSpaceMiB,
      old: row.oldSpaceMiB,
      code: row.codeSpaceMiB,
      lo: row.largeObjectMiB,
      ext: row.externalMiB,
      'anon−heap−ext': row.anonOutsideHeapMiB,
      'brk heap': Number((row.mappings.brkHeap / KIB).toFixed(1)),
      arenas: `${row.mappings.arenaCount}: ${(row.mappings.arenaLike / KIB).toFixed(1)}`,
      threads: row.threads,
    })),
  );
}

/**
 * MEMORY_CPU_ALTERNATE=1: CPU only. Every variant's gateway runs at once (own ports), and
 * each load goes to each variant in turn, round after round (the order reversed every other
 * round), so a change of the machine's load falls on every variant alike.
 */
async function alternateCpu(stack, prepared, runDir) {
  const gateways = [];
  try {
    for (const [index, [name, variant]] of variants.entries()) {
      const offset = (index + 1) * PORT_OFFSET_STEP;
      const { child } = await startGateway(stack, `${name}-cpu`, variant, runDir, offset);
      gateways.push({ name, child, url: `http://127.0.0.1:${PORTS.http + offset}` });
    }
    for (const gateway of gateways) {
      const client = new PartnerClient(gateway.url, prepared.partners[0].credentials, keepAliveAgent(1));
      for (let index = 0; index < WARM_UP_REQUESTS; index += 1)
        await client.expect('GET', '/v1/health', undefined, 200);
    }
    const loads = prepared.loads.filter(([, requests]) => requests !== null);
    const figures = {};
    for (let round = 1; round <= rounds; round += 1) {
      const order = round % 2 === 1 ? gateways : [...gateways].reverse();
      for (const [load, requests] of loads) {
        for (const gateway of order) {
          const pid = gateway.child.pid;
          const before = cpuTicksSnapshot({ gateway: pid });
          const figure = await cannon(gateway.url, requests, { connections, durationS });
          const cpuMs = cpuMsBetween(before, cpuTicksSnapshot({ gateway: pid }), clockTicksPerSecond()).gateway;
          ((figures[load] ??= {})[gateway.name] ??= []).push({
            round,
            requests: figure.total,
            failed: figure.non2xx + figure.errors,
            cpuMsPerRequest: figure.total > 0 ? cpuMs / figure.total : null,
            loadAverage: Number(os.loadavg()[0].toFixed(2)),
          });
        }
      }
      console.log(`✔ CPU round ${round} of ${rounds}`);
    }
    const median = (values) =>
      percentile(
        [...values].sort((left, right) => left - right),
        0.5,
      );
    console.table(
      Object.entries(figures).map(([load, byVariant]) => ({
        load,
        ...Object.fromEntries(
          Object.entries(byVariant).map(([name, runs]) => [
            `${name} ms/req median (min–max)`,
            `${median(runs.map((run) => run.cpuMsPerRequest)).toFixed(3)} (${Math.min(...runs.map((run) => run.cpuMsPerRequest)).toFixed(3)}–${Math.max(...runs.map((run) => run.cpuMsPerRequest)).toFixed(3)})`,
          ]),
        ),
      })),
    );
    return figures;
  } finally {
    for (const gateway of gateways) await stopGateway(gateway.child);
  }
}

async function main() {
  const startedAt = new Date();
  const runDir = path.join(RESULTS_DIR, `gateway-memory-${startedAt.toISOString().replaceAll(':', '-')}`);
  mkdirSync(runDir, { recursive: true });
  const stack = await openStack(loadProfile('test'));
  const report = {
    startedAt: startedAt.toISOString(),
    loadAverageStart: os.loadavg(),
    connections,
    durationS,
    runs: [],
  };
  let receiver;
  try {
    receiver = await startReceiver(stack.description.tlsDir);
    const prepared = await prepare(stack, receiver);
    if (env.MEMORY_CPU_ALTERNATE === '1') {
      report.cpuAlternate = await alternateCpu(stack, prepared, runDir);
      return;
    }
    for (let round = 1; round <= rounds; round += 1) {
      for (const [name, variant] of variants) {
        const loadAverage = os.loadavg().map((value) => Number(value.toFixed(2)));
        const result = await step(`${name}, round ${round} (load ${loadAverage.join(' / ')})`, () =>
          measureVariant(stack, prepared, `${name}-${round}`, variant, runDir),
        );
        const loads = breakdown(result);
        printRun(name, round, result, loads);
        report.runs.push({ variant: name, round, loadAverage, idle: result.idle, hwmKiB: result.hwmKiB, loads });
      }
    }
  } finally {
    report.loadAverageEnd = os.loadavg();
    writeFileSync(path.join(runDir, 'report.json'), JSON.stringify(report, null, 2));
    console.log(`\nreport: ${path.relative(process.cwd(), path.join(runDir, 'report.json'))}`);
    await receiver?.close();
    await stack.stop();
  }
}

await main();
