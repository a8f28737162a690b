#!/usr/bin/env node
// What one gRPC call costs each side in CPU, ours against bare grpc-js: a ceiling for the
// platform's gRPC hop. Two processes per variant (a client and a server, each its own Node),
// mutual TLS with certificates from a throwaway CA (identities gateway → trading), trading's
// GetOrder answering a settled debit-first buy as an Order message (the read the gateway's
// `GET /v1/orders/{id}` makes), GRPC_BENCH_CONCURRENCY calls in flight in a closed loop for
// GRPC_BENCH_DURATION_S after a warm-up of as long. Each process reports its own CPU
// (process.cpuUsage: every thread, the garbage collector's included) over the measured window,
// divided by the calls the server answered / the client completed: µs per call per side.
//
// Variants (GRPC_BENCH_VARIANTS, comma-separated, run interleaved GRPC_BENCH_ROUNDS times):
//   bare      grpc-js Client.makeUnaryRequest → Server handler calling back at once; the same
//             TlsMaterial credentials (certificate provider, the client's identity check) and
//             the same channel and server options as ours (channel.ts, server.ts); empty metadata.
//   bare-min  the same with grpc-js's default options (the client's TLS name override and the
//             server's connection age only): what our options cost or save.
//   base      ours, built from GRPC_BENCH_BASE_DIR instead (a copy of libs/grpc/dist made before a
//             change, kept under the repository so it resolves the same packages): before/after in one run.
//   ours      createClient → createGrpcServer with the access table, tracing started (ids only,
//             as every stack without an OTLP endpoint), each call made inside a request context
//             and a span as the gateway makes it, so the metadata carries what it carries there.
// The variants of a round run at the same time (their measured windows overlap), so on a busy machine
// each meets the same load; GRPC_BENCH_TOGETHER=0 runs them one after another (a quiet machine's ceiling).
// The client is built from libs/grpc/dist: `npx turbo run build --filter=@platform/grpc` first.
// An extra run for looking, never a figure of `npm run bench`; the machine's load moves the
// µs, so compare variants of one run only.
//   node bench/grpc-call.mjs
//   GRPC_BENCH_VARIANTS=bare,ours GRPC_BENCH_ROUNDS=5 GRPC_BENCH_CONCURRENCY=16 node bench/grpc-call.mjs
//   GRPC_BENCH_PROFILE=1 node bench/grpc-call.mjs   # each child's measured window profiled, in
//                                                   # bench/results/grpc-call/<variant>-<side>-<round>.cpuprofile
import { fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { continueOnPinnedNode } from '../scripts/lib/runtime.mjs';
import { REPO_ROOT } from '../scripts/lib/profiles.mjs';
import { boundedInt } from './lib/options.js';

const require = createRequire(import.meta.url);
const VARIANTS = ['bare', 'bare-min', 'ours', 'base'];
/** How long a child may take to start or to answer one step before the run stops. */
const STEP_TIMEOUT_MS = 120_000;
const CALL_DEADLINE_MS = 5_000;
const PROFILE_DIR = path.join(REPO_ROOT, 'bench', 'results', 'grpc-call');

/** The answer of every call: a settled 100.00 KES debit-first buy, as trading sends it. */
const ORDER = {
  orderId: '0b9f3c1e-6a2d-4e57-9c1b-2f4d8e6a7b90',
  partnerReference: 'bench-order-000123',
  side: 'buy',
  fundingMode: 'debit_first',
  status: 'settled',
  kesAmount: '100.00',
  usdtAmount: '0.769230',
  rate: '130.0000',
  kesTotalAmount: '100.50',
  fee: { kesAmount: '0.50', percentBps: 50, flatKesAmount: '0.00' },
  expiresAt: '2026-11-27T10:21:00.000Z',
  kesDebit: { status: 'debited' },
  createdAt: '2026-11-27T10:20:30.000Z',
};
const REQUEST = { partnerId: '7c2e4a90-1b3d-4f6e-8a5c-9d0e1f2a3b4c', orderId: ORDER.orderId };

/** libs/grpc's built output; for `base`, the copy GRPC_BENCH_BASE_DIR names. */
function grpcDist(variant) {
  if (variant !== 'base') return path.join(REPO_ROOT, 'libs', 'grpc', 'dist');
  const dir = process.env.GRPC_BENCH_BASE_DIR;
  if (!dir) throw new Error('the base variant needs GRPC_BENCH_BASE_DIR: a copy of an earlier libs/grpc/dist');
  return path.resolve(dir);
}

function libs(variant) {
  const grpc = require(path.join(grpcDist(variant), 'index.js'));
  const { channelOptions } = require(path.join(grpcDist(variant), 'channel.js'));
  const { serverOptions } = require(path.join(grpcDist(variant), 'server.js'));
  const { trading } = require(path.join(REPO_ROOT, 'proto', 'dist', 'index.js'));
  // The logger and tracing the variant's libs/grpc itself resolves: a base tree with its own copies
  // (node_modules/@platform/* beside it) is measured with them, a bare dist copy with this checkout's.
  const beside = (name) => require(require.resolve(name, { paths: [grpcDist(variant)] }));
  const logger = beside('@platform/logger');
  const tracing = beside('@platform/tracing');
  return { grpc, channelOptions, serverOptions, trading, logger, tracing };
}

/** The grpc-js libs/grpc resolves (hoisted to the root node_modules). */
function loadGrpcJs() {
  return require(require.resolve('@grpc/grpc-js', { paths: [path.join(REPO_ROOT, 'libs', 'grpc')] }));
}

function tlsOf(grpc, logger, files, identity) {
  return new grpc.TlsMaterial(files, {
    logger: logger.createLogger(`bench-${identity}`, 'warn'),
    expectedIdentity: identity,
  });
}

/** The V8 profiler over the measured window only (start-up and warm-up left out), when GRPC_BENCH_PROFILE=1. */
function windowProfiler(name) {
  if (process.env.GRPC_BENCH_PROFILE !== '1') return { start: async () => undefined, stop: async () => undefined };
  const session = new Session();
  session.connect();
  return {
    async start() {
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
    },
    async stop() {
      const { profile } = await session.post('Profiler.stop');
      mkdirSync(PROFILE_DIR, { recursive: true });
      writeFileSync(path.join(PROFILE_DIR, `${name}.cpuprofile`), JSON.stringify(profile));
    },
  };
}

// ---- the server child ------------------------------------------------------------------
async function serve(variant, files, round) {
  const { grpc, serverOptions, trading, logger, tracing } = libs(variant);
  const grpcJs = loadGrpcJs();
  const log = logger.createLogger('trading', 'info');
  let answered = 0;
  const tls = tlsOf(grpc, logger, files, 'trading');
  let port;
  if (variant === 'ours' || variant === 'base') {
    tracing.startTracing({ service: 'trading' });
    const server = grpc.createGrpcServer(log, tls);
    const refuse = async () => {
      throw new Error('not served by the bench');
    };
    const implementation = Object.fromEntries(Object.keys(trading.TradingOrdersService).map((name) => [name, refuse]));
    implementation.getOrder = async () => {
      answered += 1;
      return ORDER;
    };
    // Every method open to the gateway, from the definition: a hand-written table fell behind the proto (the server
    // refuses to start while a method has no entry).
    const access = Object.fromEntries(Object.keys(trading.TradingOrdersService).map((name) => [name, ['gateway']]));
    server.add(trading.TradingOrdersService, implementation, access);
    port = await server.listen(0);
  } else {
    const definition = trading.TradingOrdersService;
    const server = new grpcJs.Server(
      variant === 'bare'
        ? serverOptions(tls.connectionAge)
        : {
            'grpc.max_connection_age_ms': tls.connectionAge.maxMs,
            'grpc.max_connection_age_grace_ms': tls.connectionAge.graceMs,
          },
    );
    const handlers = Object.fromEntries(
      Object.keys(definition).map((name) => [
        name,
        (_call, callback) => callback({ code: grpcJs.status.UNIMPLEMENTED }),
      ]),
    );
    handlers.getOrder = (_call, callback) => {
      answered += 1;
      callback(null, ORDER);
    };
    server.addService(definition, handlers);
    port = await new Promise((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', tls.serverCredentials(), (error, bound) =>
        error ? reject(error) : resolve(bound),
      ),
    );
  }
  const profiler = windowProfiler(`${variant}-server-${round}`);
  let marks = 0;
  let mark = { cpu: process.cpuUsage(), answered };
  process.on('message', async (message) => {
    if (message.type !== 'mark') return;
    const cpu = process.cpuUsage(mark.cpu);
    const calls = answered - mark.answered;
    marks += 1;
    if (marks === 1) await profiler.start();
    else await profiler.stop();
    mark = { cpu: process.cpuUsage(), answered };
    process.send({ type: 'mark', cpuUs: cpu.user + cpu.system, calls });
  });
  process.send({ type: 'ready', port });
}

// ---- the client child ------------------------------------------------------------------
function bareCaller(variant, port, files) {
  const { grpc, channelOptions, trading, logger } = libs();
  const grpcJs = loadGrpcJs();
  const clientTls = tlsOf(grpc, logger, files, 'gateway').client('trading');
  const options =
    variant === 'bare' ? channelOptions('trading') : { 'grpc.ssl_target_name_override': clientTls.serverIdentity };
  const client = new grpcJs.Client(`127.0.0.1:${port}`, clientTls.credentials, options);
  const method = trading.TradingOrdersService.getOrder;
  return () =>
    new Promise((resolve, reject) =>
      client.makeUnaryRequest(
        method.path,
        method.requestSerialize,
        method.responseDeserialize,
        REQUEST,
        new grpcJs.Metadata(),
        { deadline: Date.now() + CALL_DEADLINE_MS },
        (error, response) => (error ? reject(error) : resolve(response)),
      ),
    );
}

function ourCaller(variant, port, files) {
  const { grpc, trading, logger, tracing } = libs(variant);
  tracing.startTracing({ service: 'gateway' });
  const log = logger.createLogger('gateway', 'info');
  const client = grpc.createClient(trading.TradingOrdersService, {
    upstream: 'trading',
    address: `127.0.0.1:${port}`,
    logger: log,
    tls: tlsOf(grpc, logger, files, 'gateway').client('trading'),
  });
  let sequence = 0;
  // As the gateway calls: inside the partner request's context and its SERVER span.
  return () => {
    sequence += 1;
    const context = { requestId: `req-${sequence}`, partnerId: REQUEST.partnerId, credentialKey: 'pk_bench_0001' };
    return logger.runWithContext(context, () =>
      tracing.inSpan('GET /v1/orders/:id', { kind: tracing.SpanKind.SERVER }, () => client.getOrder(REQUEST)),
    );
  };
}

async function loop(call, concurrency, durationMs) {
  const endAt = performance.now() + durationMs;
  let calls = 0;
  const worker = async () => {
    while (performance.now() < endAt) {
      const order = await call();
      if (order.orderId !== ORDER.orderId) throw new Error('the answer is not the order sent');
      calls += 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return calls;
}

async function callFor(variant, port, files, concurrency, durationMs, round) {
  const profiler = windowProfiler(`${variant}-client-${round}`);
  const call =
    variant === 'ours' || variant === 'base' ? ourCaller(variant, port, files) : bareCaller(variant, port, files);
  await loop(call, concurrency, durationMs); // warm-up: connection, JIT
  process.send({ type: 'warm' });
  await new Promise((resolve) => process.once('message', resolve));
  await profiler.start();
  const before = process.cpuUsage();
  const calls = await loop(call, concurrency, durationMs);
  const cpu = process.cpuUsage(before);
  await profiler.stop();
  process.send({ type: 'done', cpuUs: cpu.user + cpu.system, calls });
}

// ---- the parent ------------------------------------------------------------------------
function child(args) {
  const proc = fork(new URL(import.meta.url).pathname, args, { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const next = (type) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${args[0]} did not send ${type} in time`)), STEP_TIMEOUT_MS);
      const onMessage = (message) => {
        if (message.type !== type) return;
        clearTimeout(timer);
        proc.off('message', onMessage);
        resolve(message);
      };
      proc.on('message', onMessage);
      proc.once('exit', (code) => reject(new Error(`${args[0]} exited (${code}) before ${type}`)));
    });
  return { proc, next };
}

/** Asks a child to exit (a profiled one writes its profile on exit, not on a signal); kills it after a bound. */
function stop(proc) {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => proc.kill('SIGKILL'), STEP_TIMEOUT_MS);
    proc.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    proc.send({ type: 'exit' }, () => undefined);
  });
}

/** Starts a variant's server and client; resolves once the client has warmed up. */
async function started(variant, filesArg, settings, index) {
  const server = child(['server', variant, filesArg, String(index)]);
  const { port } = await server.next('ready');
  const client = child([
    'client',
    variant,
    filesArg,
    String(index),
    String(port),
    String(settings.concurrency),
    String(settings.durationMs),
  ]);
  await client.next('warm');
  return { variant, server, client };
}

/** One measured window of a started pair: the server's CPU between two marks around the client's. */
async function measured(pair, settings) {
  const { server, client } = pair;
  const serverMark = server.next('mark');
  server.proc.send({ type: 'mark' });
  await serverMark;
  const done = client.next('done');
  client.proc.send({ type: 'go' });
  const clientSide = await done;
  const serverEnd = server.next('mark');
  server.proc.send({ type: 'mark' });
  const serverSide = await serverEnd;
  return {
    variant: pair.variant,
    calls: clientSide.calls,
    callsPerSecond: clientSide.calls / (settings.durationMs / 1000),
    clientUsPerCall: clientSide.cpuUs / clientSide.calls,
    serverUsPerCall: serverSide.cpuUs / serverSide.calls,
  };
}

/** One round of `variants`: together (their windows overlap, so they meet the same load) or one after another. */
async function round(variants, files, settings, index) {
  const filesArg = JSON.stringify(files);
  const pairs = [];
  try {
    if (!settings.together) {
      const results = [];
      for (const variant of variants) {
        const pair = await started(variant, filesArg, settings, index);
        pairs.push(pair);
        results.push(await measured(pair, settings));
        await Promise.all([stop(pair.client.proc), stop(pair.server.proc)]);
      }
      return results;
    }
    pairs.push(...(await Promise.all(variants.map((variant) => started(variant, filesArg, settings, index)))));
    return await Promise.all(pairs.map((pair) => measured(pair, settings)));
  } finally {
    await Promise.all(pairs.flatMap((pair) => [stop(pair.client.proc), stop(pair.server.proc)]));
  }
}

async function main() {
  await continueOnPinnedNode();
  const variants = (process.env.GRPC_BENCH_VARIANTS ?? 'bare,ours').split(',');
  const unknown = variants.filter((variant) => !VARIANTS.includes(variant));
  if (unknown.length > 0)
    throw new Error(`GRPC_BENCH_VARIANTS: unknown ${unknown.join(', ')} (known: ${VARIANTS.join(', ')})`);
  const settings = {
    rounds: boundedInt(process.env, 'GRPC_BENCH_ROUNDS', 3, 1, 50),
    concurrency: boundedInt(process.env, 'GRPC_BENCH_CONCURRENCY', 16, 1, 256),
    durationMs: boundedInt(process.env, 'GRPC_BENCH_DURATION_S', 4, 1, 120) * 1000,
    together: process.env.GRPC_BENCH_TOGETHER !== '0',
  };
  const { TestCertificateAuthority } = require(
    path.join(REPO_ROOT, 'libs', 'grpc', 'dist', 'testing', 'test-certificates.js'),
  );
  const dir = mkdtempSync(path.join(tmpdir(), 'grpc-call-bench-'));
  try {
    const authority = TestCertificateAuthority.create(dir);
    const files = {
      gateway: authority.issue('gateway'),
      trading: authority.issue('trading'),
    };
    const { loadavg } = await import('node:os');
    console.log(
      `load average at start ${loadavg()
        .map((value) => value.toFixed(2))
        .join(' / ')}; ${JSON.stringify(settings)}`,
    );
    const results = [];
    for (let index = 0; index < settings.rounds; index += 1) {
      for (const result of await round(variants, files, settings, index + 1)) {
        results.push(result);
        console.log(
          `round ${index + 1} ${result.variant.padEnd(8)} ${result.callsPerSecond.toFixed(0).padStart(6)} calls/s  client ${result.clientUsPerCall.toFixed(1).padStart(6)} µs/call  server ${result.serverUsPerCall.toFixed(1).padStart(6)} µs/call`,
        );
      }
    }
    const median = (values) => [...values].sort((left, right) => left - right)[Math.floor(values.length / 2)];
    console.log('medians:');
    for (const variant of variants) {
      const of = results.filter((result) => result.variant === variant);
      const client = median(of.map((result) => result.clientUsPerCall));
      const server = median(of.map((result) => result.serverUsPerCall));
      console.log(
        `  ${variant.padEnd(8)} client ${client.toFixed(1).padStart(6)} µs  server ${server.toFixed(1).padStart(6)} µs  both ${(client + server).toFixed(1).padStart(6)} µs per call`,
      );
    }
    if (settings.together && variants.length > 1) {
      // Paired: each round's variants ran at the same time, so their ratio cancels most of the load's swing.
      const [first, ...others] = variants;
      for (const other of others) {
        const ratios = { client: [], server: [], both: [] };
        for (let index = 0; index < settings.rounds; index += 1) {
          const [a, b] = [first, other].map((name) => results[index * variants.length + variants.indexOf(name)]);
          ratios.client.push(b.clientUsPerCall / a.clientUsPerCall);
          ratios.server.push(b.serverUsPerCall / a.serverUsPerCall);
          ratios.both.push((b.clientUsPerCall + b.serverUsPerCall) / (a.clientUsPerCall + a.serverUsPerCall));
        }
        console.log(
          `  ${other} ÷ ${first}, median of the rounds' ratios: client ${median(ratios.client).toFixed(2)}, server ${median(ratios.server).toFixed(2)}, both ${median(ratios.both).toFixed(2)}`,
        );
      }
    }
    console.log(
      `load average at end ${loadavg()
        .map((value) => value.toFixed(2))
        .join(' / ')}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const [role, variant, filesArg, ...rest] = process.argv.slice(2);
if (role) process.on('message', (message) => message.type === 'exit' && process.exit(0));
if (role === 'server') {
  await serve(variant, JSON.parse(filesArg).trading, Number(rest[0]));
} else if (role === 'client') {
  const [round, port, concurrency, durationMs] = rest.map(Number);
  await callFor(variant, port, JSON.parse(filesArg).gateway, concurrency, durationMs, round);
} else {
  await main();
}
