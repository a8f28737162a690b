// The ceilings the gateway is compared with, in the same run on the same machine: a bare
// node:http and a bare express hello-world, each in a process of its own like the gateway.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { REPO_ROOT } from '../../scripts/lib/profiles.mjs';
import { isPortOpen, sleep } from '../../scripts/lib/processes.mjs';

const require = createRequire(import.meta.url);
const autocannon = require('autocannon');
const { loadInvalid } = require('./stats.js');

/** Ceiling servers listen here (the range the repository leaves for ad-hoc servers). */
export const CEILING_PORTS = { 'node:http': 23902, express: 23901 };
const SERVER_READY_TIMEOUT_MS = 15_000;
const SERVER_POLL_MS = 100;
const SERVER_STOP_TIMEOUT_MS = 5_000;

const SOURCES = {
  'node:http': (port) =>
    `require('node:http').createServer((req, res) => { req.resume(); res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"status":"ok"}'); }).listen(${port}, '127.0.0.1');`,
  express: (port) =>
    `const app = require('express')(); app.all('*splat', (req, res) => res.json({ status: 'ok' })); app.listen(${port}, '127.0.0.1');`,
};

export async function waitForPort(port, timeoutMs = SERVER_READY_TIMEOUT_MS) {
  const deadline = Date.now() + timeoutMs;
  while (!(await isPortOpen(port))) {
    if (Date.now() > deadline) throw new Error(`nothing listens on ${port} after ${timeoutMs} ms`);
    await sleep(SERVER_POLL_MS);
  }
}

/** Runs `work(url)` against a ceiling server of `kind` started for it, then stops the server. */
export async function withCeiling(kind, work) {
  const port = CEILING_PORTS[kind];
  // express resolves from the gateway's dependencies: the same version the gateway runs.
  const child = spawn(process.execPath, ['-e', SOURCES[kind](port)], {
    cwd: path.join(REPO_ROOT, 'services', 'gateway'),
    stdio: 'ignore',
  });
  try {
    await waitForPort(port);
    return await work(`http://127.0.0.1:${port}`);
  } finally {
    child.kill('SIGTERM');
    await Promise.race([
      new Promise((resolve) => (child.exitCode !== null ? resolve() : child.on('close', resolve))),
      sleep(SERVER_STOP_TIMEOUT_MS),
    ]);
  }
}

/** autocannon against `url`: closed loop, or at `overallRate` requests/s across all connections. */
export async function cannon(url, requests, { connections, durationS, overallRate }) {
  const result = await autocannon({
    url,
    connections,
    duration: durationS,
    requests,
    ...(overallRate ? { overallRate } : {}),
  });
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    total: result.requests.total,
    non2xx: result.non2xx,
    statusCodes: Object.fromEntries(
      Object.entries(result.statusCodeStats ?? {}).map(([status, stats]) => [status, stats.count]),
    ),
    errors: result.errors,
    timeouts: result.timeouts,
    ...(overallRate ? { overallRate } : {}),
  };
}

/** Why a load's figure cannot be trusted, or undefined. */
export const cannonInvalid = loadInvalid;
