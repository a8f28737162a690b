// BENCH_CPU_PROFILE=1: where the time goes, with `node --cpu-prof` (profiles land in
// bench/results/, ranked by bench/cpu-profile-top.mjs). Profiled runs are extra runs: the
// profiler's own cost never reaches a measured figure.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from '../../scripts/lib/profiles.mjs';
import { stopPid } from '../../scripts/lib/processes.mjs';
import { step } from '../../scripts/lib/steps.mjs';
import { cannon, waitForPort } from './ceilings.mjs';
import { autocannonRequests } from './http.mjs';
import { RESULTS_DIR } from './child-bench.mjs';
import { services } from './stack.mjs';

const PROFILED_GATEWAY_PORT = 23903;
const PROFILED_GATEWAY_GRPC_PORT = 23904;
const PROFILED_GATEWAY_METRICS_PORT = 23905;

const serviceNamed = (name) => services.SERVICES.find((service) => service.name === name);
const closed = (child) => new Promise((resolve) => (child.exitCode !== null ? resolve() : child.on('close', resolve)));

/** A second gateway (same environment, own ports) under --cpu-prof while a signed GET /v1/balances load runs. */
export async function profileGateway(ctx, credentials) {
  const env = {
    ...services.serviceEnvironment(ctx.profile, serviceNamed('gateway')),
    HTTP_PORT: String(PROFILED_GATEWAY_PORT),
    GRPC_PORT: String(PROFILED_GATEWAY_GRPC_PORT),
    METRICS_PORT: String(PROFILED_GATEWAY_METRICS_PORT),
  };
  const child = spawn(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${RESULTS_DIR}`, 'dist/main.js'], {
    cwd: path.join(REPO_ROOT, 'services', 'gateway'),
    env,
    stdio: 'ignore',
  });
  try {
    await waitForPort(PROFILED_GATEWAY_PORT);
    await step('gateway GET /v1/balances under --cpu-prof', () =>
      cannon(
        `http://127.0.0.1:${PROFILED_GATEWAY_PORT}`,
        autocannonRequests([{ credentials, path: '/v1/balances' }], 'GET'),
        { connections: ctx.options.connections, durationS: ctx.options.durationS },
      ),
    );
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
        ['--cpu-prof', `--cpu-prof-dir=${path.join(RESULTS_DIR, `cpu-orders-${name}`)}`, 'dist/main.js'],
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
