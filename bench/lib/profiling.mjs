// BENCH_CPU_PROFILE=1: where the time goes, with `node --cpu-prof` (profiles land in
// bench/results/, ranked by bench/cpu-profile-top.mjs). Profiled runs are extra runs: the
// profiler's own cost never reaches a measured figure.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { REPO_ROOT } from '../../scripts/lib/profiles.mjs';
import { stopPid } from '../../scripts/lib/processes.mjs';
import { step } from '../../scripts/lib/steps.mjs';
import { cannon, waitForPort } from './ceilings.mjs';
import { autocannonRequests, keepAliveAgent, PartnerClient } from './http.mjs';
import { quoteAndBuy } from './load.mjs';
import { ORDER_KES, withRateWindowEmptied } from './partners.mjs';
import { RESULTS_DIR } from './child-bench.mjs';
import { services } from './stack.mjs';

const require = createRequire(import.meta.url);
const { failureText } = require('./stats.js');

const PROFILED_GATEWAY_PORT = 23903;
const PROFILED_GATEWAY_GRPC_PORT = 23904;
const PROFILED_GATEWAY_METRICS_PORT = 23905;

/** CLOCK_MONOTONIC in µs, what V8 stamps profile samples with. */
const monotonicUs = () => process.hrtime.bigint() / 1000n;

const serviceNamed = (name) => services.SERVICES.find((service) => service.name === name);
const closed = (child) => new Promise((resolve) => (child.exitCode !== null ? resolve() : child.on('close', resolve)));

/** The signed loads a profiled gateway serves, one after another: the per-request path of each partner call the bench rates. */
async function profiledLoads(ctx, credentials) {
  const placed = await quoteAndBuy(new PartnerClient(ctx.gatewayUrl, credentials, keepAliveAgent(1)));
  if (placed.failure) throw new Error(`an order to read could not be placed: ${placed.failure}`);
  const sender = (path) => [{ credentials, path }];
  return [
    ['GET /v1/health', autocannonRequests(sender('/v1/health'), 'GET')],
    ['GET /v1/balances', autocannonRequests(sender('/v1/balances'), 'GET')],
    ['GET /v1/orders/{id}', autocannonRequests(sender(`/v1/orders/${placed.orderId}`), 'GET')],
    ['POST /v1/quotes', autocannonRequests(sender('/v1/quotes'), 'POST', { side: 'buy', kesAmount: ORDER_KES })],
  ];
}

/**
 * A second gateway (same environment and Node flags, own ports) under --cpu-prof while
 * signed GET /v1/health, GET /v1/balances, GET /v1/orders/{id} and POST /v1/quotes loads run
 * in turn: one profile of the whole per-request path (bench/cpu-profile-top.mjs ranks it).
 * Each load prints its window (`--window=` for cpu-profile-top, with `--per=` its answers),
 * so one load's part can be read alone. One partner makes every request: its rate-limit
 * window is emptied during each load, or the later loads would be mostly 429s and profile
 * the refusal.
 */
export async function profileGateway(ctx, partner) {
  const { credentials } = partner;
  const env = {
    ...services.serviceEnvironment(ctx.profile, serviceNamed('gateway')),
    HTTP_PORT: String(PROFILED_GATEWAY_PORT),
    GRPC_PORT: String(PROFILED_GATEWAY_GRPC_PORT),
    METRICS_PORT: String(PROFILED_GATEWAY_METRICS_PORT),
  };
  const loads = await profiledLoads(ctx, credentials);
  const child = spawn(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${RESULTS_DIR}`, 'dist/main.js'], {
    cwd: path.join(REPO_ROOT, 'services', 'gateway'),
    env,
    stdio: 'ignore',
  });
  try {
    await waitForPort(PROFILED_GATEWAY_PORT);
    for (const [name, requests] of loads) {
      const fromUs = monotonicUs();
      const result = await step(`gateway ${name} under --cpu-prof`, () =>
        withRateWindowEmptied(ctx.description.redisUrl, partner.partnerId, () =>
          cannon(`http://127.0.0.1:${PROFILED_GATEWAY_PORT}`, requests, {
            connections: ctx.options.connections,
            durationS: ctx.options.durationS,
          }),
        ),
      );
      console.log(
        `  ${name}: --window=${fromUs}-${monotonicUs()} --per=${result.total} (${failureText(result.statusCodes)} by status)`,
      );
    }
  } finally {
    child.kill('SIGTERM');
    await closed(child);
  }
}

/**
 * Replaces the stack's instances of `names` with ones under --cpu-prof (same environment
 * and ports; Node 20 refuses --cpu-prof in NODE_OPTIONS) while `work` runs, then stops them
 * so each writes its profile to bench/results/cpu-orders-<name>/. The stack's own instances
 * are not restarted: profile last. `readyTimeoutMs`: how long each may take to listen (a busy
 * machine starts a service slowly).
 */
export async function withProfiledServices(ctx, names, work, { readyTimeoutMs } = {}) {
  const children = [];
  try {
    for (const name of names) {
      const service = serviceNamed(name);
      const pid = services.servicePid(ctx.profile, service);
      if (pid) await stopPid(pid);
      const child = spawn(
        process.execPath,
        [
          '--cpu-prof',
          `--cpu-prof-dir=${path.join(RESULTS_DIR, `cpu-orders-${name}`)}`,
          ...(process.env.BENCH_CPU_PROFILE_INTERVAL_US
            ? [`--cpu-prof-interval=${process.env.BENCH_CPU_PROFILE_INTERVAL_US}`]
            : []),
          'dist/main.js',
        ],
        {
          cwd: path.join(REPO_ROOT, service.folder),
          env: services.serviceEnvironment(ctx.profile, service),
          stdio: 'ignore',
        },
      );
      children.push(child);
      await waitForPort(services.grpcPort(ctx.profile, service), readyTimeoutMs);
    }
    return await work();
  } finally {
    for (const child of children) {
      child.kill('SIGTERM');
      await closed(child);
    }
  }
}
