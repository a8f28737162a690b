// The eight services of a stack: their table, their environment (docs/conventions.md),
// and migrate / start / wait-until-ready / stop, each by PID under the stack folder.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import {
  assertPortFree, ensureDir, isAlive, isOurProcess, LoggedError, readPidFile, removeFile, run, sleep, stopPid,
  writeJson, writePidFile,
} from './processes.mjs';
import { callerCaFile, databaseUrl, ensureSecrets, trustedCaFile } from './infra.mjs';
import { ensureIdentities, identityEnvironment, OPS_IDENTITY, tlsDescription } from './identities.mjs';
import { APP_PASSWORD, APP_ROLE } from './postgres.mjs';
import { RABBIT_PASSWORD, RABBIT_USER } from './rabbitmq.mjs';

const MIGRATION_TIMEOUT_MS = 120_000;
const READY_TIMEOUT_MS = 60_000;
const READY_POLL_INTERVAL_MS = 500;
const HEALTH_CHECK_TIMEOUT_MS = 1_000;
const SERVICE_STOP_GRACE_MS = 10_000;
const EXTRA_ENV_PREFIX = 'STACK_ENV_';

// Variables a service inherits from the calling shell; everything else it gets is set
// below, so a service runs the same whatever the caller's shell holds. Anything more
// goes through STACK_ENV_<NAME>.
const INHERITED_VARIABLES = ['PATH', 'HOME', 'USER', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR', 'NODE_OPTIONS'];

export const SERVICE_NAMES = [
  'gateway', 'trading', 'ledger', 'wallet-registry', 'payouts', 'collections', 'notifier', 'webhook-delivery',
];

/** Every identity the stack issues a certificate to: each service, and the ops tool. */
export const IDENTITY_NAMES = [...SERVICE_NAMES, OPS_IDENTITY];

/** Issues the certificates that are missing or due (7-day certificates, renewed 2 days ahead). */
export const ensureServiceIdentities = (profile) => ensureIdentities(profile, IDENTITY_NAMES);

/** name, folder (relative to the repository), database and environment-variable prefix. */
export const SERVICES = Object.freeze(SERVICE_NAMES.map((name) => Object.freeze({
  name,
  folder: `services/${name}`,
  database: `svc_${name.replaceAll('-', '_')}`,
  envPrefix: name.toUpperCase().replaceAll('-', '_'),
})));

export const DATABASE_NAMES = SERVICES.map((service) => service.database);

export const grpcPort = (profile, service) => profile.ports.grpc[service.name];
export const metricsPort = (profile, service) => profile.ports.metrics[service.name];
export const metricsUrl = (profile, service) => `http://127.0.0.1:${metricsPort(profile, service)}/metrics`;
export const grpcAddress = (profile, service) => `127.0.0.1:${grpcPort(profile, service)}`;
export const amqpUrl = (profile) => `amqp://${RABBIT_USER}:${RABBIT_PASSWORD}@127.0.0.1:${profile.ports.amqp}/`;
export const redisUrl = (profile) => `redis://127.0.0.1:${profile.ports.redis}/0`;

const servicePaths = (profile, service) => ({
  dir: path.join(profile.repoRoot, service.folder),
  main: path.join(profile.repoRoot, service.folder, 'dist', 'main.js'),
  migrate: path.join(profile.repoRoot, service.folder, 'dist', 'migrate.js'),
  logFile: path.join(profile.logsDir, `${service.name}.log`),
  migrateLogFile: path.join(profile.logsDir, `${service.name}-migrate.log`),
  pidFile: path.join(profile.pidsDir, `${service.name}.pid`),
});

/** Every service's log files (serving and migrating), whether or not they exist yet. */
export function serviceLogFiles(profile) {
  return SERVICES.flatMap((service) => {
    const files = servicePaths(profile, service);
    return [files.migrateLogFile, files.logFile];
  });
}

/** STACK_ENV_FOO=bar in the caller's environment becomes FOO=bar for every service. */
export function extraEnvironment(env = process.env) {
  return Object.fromEntries(Object.entries(env)
    .filter(([name]) => name.startsWith(EXTRA_ENV_PREFIX) && name.length > EXTRA_ENV_PREFIX.length)
    .map(([name, value]) => [name.slice(EXTRA_ENV_PREFIX.length), value]));
}

function peerAddresses(profile) {
  return Object.fromEntries(SERVICES.map((peer) => [`${peer.envPrefix}_GRPC_ADDR`, grpcAddress(profile, peer)]));
}

/**
 * Node flags every service runs with (the image sets the same in its Dockerfile):
 * a 4 MiB young-generation semi-space instead of V8's 16 MiB, which keeps a busy
 * service's resident memory about 30 MiB lower (measured in docs/performance.md)
 * at no measurable CPU cost, since request garbage dies young either way.
 */
export const SERVICE_NODE_OPTIONS = '--max-semi-space-size=4';

/** The complete environment of one service in this profile. */
export function serviceEnvironment(profile, service, env = process.env) {
  const secrets = ensureSecrets(profile);
  const inherited = Object.fromEntries(INHERITED_VARIABLES.filter((name) => env[name]).map((name) => [name, env[name]]));
  return {
    ...inherited,
    NODE_OPTIONS: [SERVICE_NODE_OPTIONS, env.NODE_OPTIONS].filter(Boolean).join(' '),
    PLATFORM_MODE: 'sandbox',
    LOG_LEVEL: 'info',
    ...identityEnvironment(profile, service.name),
    SANDBOX_TIME_SCALE: profile.sandboxTimeScale,
    DATABASE_URL: databaseUrl(profile, service.database),
    AMQP_URL: amqpUrl(profile),
    REDIS_URL: redisUrl(profile),
    GRPC_PORT: String(grpcPort(profile, service)),
    METRICS_PORT: String(metricsPort(profile, service)),
    ...(service.name === 'gateway' ? { HTTP_PORT: String(profile.ports.gatewayHttp) } : {}),
    ...peerAddresses(profile),
    CREDENTIAL_ENCRYPTION_KEY: secrets.CREDENTIAL_ENCRYPTION_KEY,
    WEBHOOK_SECRET_ENCRYPTION_KEY: secrets.WEBHOOK_SECRET_ENCRYPTION_KEY,
    CODE_HASH_KEY: secrets.CODE_HASH_KEY,
    // The stack's CA, bundled with the caller's own NODE_EXTRA_CA_CERTS when there is one.
    NODE_EXTRA_CA_CERTS: trustedCaFile(profile, env),
    ...extraEnvironment(env),
  };
}

function assertBuilt(file) {
  if (!existsSync(file)) throw new Error(`${path.relative(process.cwd(), file)} is missing: build first (npx turbo run build)`);
}

// ---------------------------------------------------------------- migrate

/** Runs every service's migrations, one service after another; a failure names its log. */
export async function migrateAll(profile) {
  ensureDir(profile.logsDir);
  for (const service of SERVICES) {
    const files = servicePaths(profile, service);
    assertBuilt(files.migrate);
    await run(process.execPath, [files.migrate], {
      cwd: files.dir, env: serviceEnvironment(profile, service), logFile: files.migrateLogFile,
      timeoutMs: MIGRATION_TIMEOUT_MS,
    });
  }
}

// ---------------------------------------------------------------- start, status, stop

/** The PID of a running service (checked against its command line), or null. */
export function servicePid(profile, service) {
  const files = servicePaths(profile, service);
  const pid = readPidFile(files.pidFile);
  return pid && isOurProcess(pid, files.main) ? pid : null;
}

/** Every port a service listens on: gRPC and metrics, plus HTTP for the gateway. */
function servicePorts(profile, service) {
  const extra = { gateway: [profile.ports.gatewayHttp] };
  return [grpcPort(profile, service), metricsPort(profile, service), ...(extra[service.name] ?? [])];
}

async function startService(profile, service) {
  const files = servicePaths(profile, service);
  assertBuilt(files.main);
  // A port held by something else would make the service fail later, less clearly.
  for (const port of servicePorts(profile, service)) await assertPortFree(port, service.name);
  const logFd = openSync(files.logFile, 'a');
  const child = spawn(process.execPath, [files.main], {
    cwd: files.dir, env: serviceEnvironment(profile, service), detached: true, stdio: ['ignore', logFd, logFd],
  });
  closeSync(logFd);
  child.unref();
  writePidFile(files.pidFile, child.pid);
}

/** Starts every service not already running. Resolves to the names of those it started. */
export async function startAll(profile) {
  ensureDir(profile.logsDir);
  ensureDir(profile.pidsDir);
  const started = [];
  for (const service of SERVICES) {
    if (servicePid(profile, service)) continue;
    await startService(profile, service);
    started.push(service.name);
  }
  return started;
}

export function servicesStatus(profile) {
  return SERVICES.map((service) => {
    const pid = servicePid(profile, service);
    return { name: service.name, pid, running: pid !== null, grpc: grpcAddress(profile, service), metrics: metricsUrl(profile, service) };
  });
}

export const allServicesRunning = (profile) => servicesStatus(profile).every((service) => service.running);

/** SIGTERM to every service, up to 10 s to drain, then SIGKILL. Removes stack.json. */
export async function stopAll(profile) {
  removeFile(profile.stackFile);
  removeFile(serviceEnvFile(profile));
  const outcomes = await Promise.all(SERVICES.map(async (service) => {
    const pid = servicePid(profile, service);
    const outcome = pid ? await stopPid(pid, { graceMs: SERVICE_STOP_GRACE_MS }) : 'not running';
    removeFile(servicePaths(profile, service).pidFile);
    return { name: service.name, outcome };
  }));
  return outcomes.filter(({ outcome }) => outcome !== 'not running');
}

// ---------------------------------------------------------------- readiness

const SILENT_LOGGER = { debug() {}, info() {}, warn() {}, error() {}, child() { return SILENT_LOGGER; } };

/** checkHealth(address, service) over mutual TLS, as the ops identity (health admits any identity of the CA). */
function loadHealthCheck(profile) {
  const helper = path.join(profile.repoRoot, 'libs', 'grpc', 'dist', 'index.js');
  assertBuilt(helper);
  const { checkHealth, TlsMaterial } = createRequire(import.meta.url)(helper);
  if (typeof checkHealth !== 'function' || typeof TlsMaterial !== 'function') throw new Error(`${helper} does not export checkHealth and TlsMaterial`);
  const { identities } = tlsDescription(profile, [OPS_IDENTITY]);
  const tls = new TlsMaterial(identities[OPS_IDENTITY], { logger: SILENT_LOGGER, expectedIdentity: OPS_IDENTITY });
  return (address, serviceName, timeoutMs) => checkHealth(address, timeoutMs, tls.client(serviceName));
}

function httpStatus(url, timeoutMs) {
  return new Promise((resolve) => {
    const request = http.get(url, { timeout: timeoutMs }, (response) => {
      response.resume();
      resolve(response.statusCode);
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(null));
  });
}

async function isServiceReady(profile, service, checkHealth) {
  const serving = await checkHealth(grpcAddress(profile, service), service.name, HEALTH_CHECK_TIMEOUT_MS).catch(() => false);
  if (!serving || service.name !== 'gateway') return serving;
  return (await httpStatus(`${profile.gatewayUrl}/healthz`, HEALTH_CHECK_TIMEOUT_MS)) === 200;
}

/**
 * Waits until every service answers SERVING on grpc.health.v1 (and the gateway 200 on
 * /healthz). Fails at once when a service process exits, naming its log.
 */
export async function waitReady(profile) {
  const checkHealth = loadHealthCheck(profile);
  const pending = new Set(SERVICES);
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (pending.size > 0) {
    for (const service of pending) {
      const files = servicePaths(profile, service);
      const pid = readPidFile(files.pidFile);
      if (!pid || !isAlive(pid)) throw new LoggedError(`${service.name} exited during start`, files.logFile);
      if (await isServiceReady(profile, service, checkHealth)) pending.delete(service);
    }
    if (pending.size === 0) break;
    if (Date.now() >= deadline) {
      const names = [...pending].map((service) => service.name).join(', ');
      const logs = [...pending].map((service) => servicePaths(profile, service).logFile).join(', ');
      throw new LoggedError(`not ready after ${READY_TIMEOUT_MS / 1000} s: ${names}`, logs);
    }
    await sleep(READY_POLL_INTERVAL_MS);
  }
}

// ---------------------------------------------------------------- stack.json

/** What tests and the ops tool read to find the running stack. */
export function stackDescription(profile) {
  const pg = profile.ports.postgres;
  return {
    profile: profile.name,
    stackDir: profile.stackDir,
    gatewayUrl: profile.gatewayUrl,
    grpc: Object.fromEntries(SERVICES.map((service) => [service.name, grpcAddress(profile, service)])),
    // Each service's Prometheus endpoint (GET /metrics).
    metricsUrls: Object.fromEntries(SERVICES.map((service) => [service.name, metricsUrl(profile, service)])),
    webhookDeliveryMetricsUrl: metricsUrl(profile, SERVICES.find((service) => service.name === 'webhook-delivery')),
    postgres: {
      host: '127.0.0.1',
      port: pg,
      user: APP_ROLE,
      password: APP_PASSWORD,
      urlTemplate: `postgres://${APP_ROLE}:${APP_PASSWORD}@127.0.0.1:${pg}/{database}`,
    },
    redisUrl: redisUrl(profile),
    amqpUrl: amqpUrl(profile),
    tlsDir: profile.tlsDir,
    tls: tlsDescription(profile, IDENTITY_NAMES),
    // The CA file the caller gave in NODE_EXTRA_CA_CERTS, trusted by the services beside the stack's own.
    callerCaFile: callerCaFile(),
    logsDir: profile.logsDir,
    databases: Object.fromEntries(SERVICES.map((service) => [service.name, databaseUrl(profile, service.database)])),
    sandboxTimeScale: Number(profile.sandboxTimeScale),
    extraEnv: extraEnvironment(),
    serviceEnvFile: serviceEnvFile(profile),
  };
}

/** Where each service's complete environment is written, for tests that start an extra instance. */
const serviceEnvFile = (profile) => path.join(profile.stackDir, 'service-env.json');

/**
 * Writes stack.json, and beside it every service's environment (it holds the stack's
 * encryption keys, so only its owner may read it): a test starts an extra replica of a
 * service with exactly the environment the stack's own instance has.
 */
export function writeStackFile(profile) {
  writeJson(profile.stackFile, stackDescription(profile));
  const environments = Object.fromEntries(SERVICES.map((service) => [service.name, serviceEnvironment(profile, service)]));
  writeJson(serviceEnvFile(profile), environments, 0o600);
  return profile.stackFile;
}
