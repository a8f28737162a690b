/**
 * Starts an extra instance of a stack service from a test (a second replica),
 * with exactly the environment the stack's own instance has (read from the
 * stack's service-env.json), on ports of its own. The test owns the process:
 * it kills it (SIGKILL, to prove nothing is lost) or stops it (SIGTERM).
 */
import { ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createConnection, createServer, AddressInfo } from 'node:net';
import { join } from 'node:path';
import { loadTestStack } from './stack';
import { waitFor } from './wait';

const REPO_ROOT = join(__dirname, '..', '..', '..');
const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;

export interface ServiceInstance {
  pid: number;
  logFile: string;
  env: Record<string, string>;
  /** SIGKILL: the process dies at once, mid-work. */
  kill(): Promise<void>;
  /** SIGTERM and wait for the graceful exit. */
  stop(): Promise<void>;
}

/** A TCP port free on 127.0.0.1 right now (the OS's pick), for a process the test starts. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function exited(child: ChildProcess, timeoutMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return waitFor(() => child.exitCode !== null || child.signalCode !== null, {
    timeoutMs,
    what: `process ${child.pid} to exit`,
  }).then(() => undefined);
}

/** The environment of the stack's instance of `service`. */
export function serviceEnvironment(service: string): Record<string, string> {
  const file = loadTestStack().serviceEnvFile;
  if (!file) throw new Error('the stack file names no serviceEnvFile: restart the test stack');
  const all = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, string>>;
  const env = all[service];
  if (!env) throw new Error(`no environment for service ${service}`);
  return env;
}

/**
 * Starts `node services/<service>/dist/main.js` with the stack's environment plus
 * `overrides`, a fresh GRPC_PORT and METRICS_PORT (unless `overrides` names them), and
 * resolves once its gRPC port accepts connections (the service listens only after
 * its consumers and workers started).
 */
export async function startServiceInstance(
  service: string,
  overrides: Record<string, string> = {},
): Promise<ServiceInstance> {
  const base = serviceEnvironment(service);
  const env: Record<string, string> = {
    ...base,
    GRPC_PORT: String(await freePort()),
    METRICS_PORT: String(await freePort()),
    ...overrides,
  };
  const logFile = join(loadTestStack().logsDir, `${service}-extra-${Date.now()}.log`);
  const logFd = openSync(logFile, 'a');
  const child = spawn(process.execPath, [join(REPO_ROOT, 'services', service, 'dist', 'main.js')], {
    cwd: join(REPO_ROOT, 'services', service),
    env,
    stdio: ['ignore', logFd, logFd],
  });
  closeSync(logFd);
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${service}`);
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`${service} exited with ${child.exitCode}; see ${logFile}`);
        return portAnswers(Number(env.GRPC_PORT));
      },
      { timeoutMs: READY_TIMEOUT_MS, intervalMs: 200, what: `${service} instance to listen (log ${logFile})` },
    );
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    pid,
    logFile,
    env,
    async kill() {
      child.kill('SIGKILL');
      await exited(child, STOP_TIMEOUT_MS);
    },
    async stop() {
      child.kill('SIGTERM');
      await exited(child, STOP_TIMEOUT_MS);
    },
  };
}
