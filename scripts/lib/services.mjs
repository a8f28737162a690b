// The eight services of a stack: their table, their environment (docs/conventions.md),
// and migrate / start / wait-until-ready / stop / restart, each by PID under the stack folder.
// With STACK_REPLICAS=N (profiles.mjs) every service runs N replicas: replica 1 keeps the
// single-replica names (<service>.pid, <service>.log) and ports; replica r > 1 has
// <service>-<r>.pid, <service>-<r>.log and ports + 10 × (r - 1). Each client is given
// every replica of its peer (a comma-separated list) and balances over them.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import {
  assertPortFree,
  ensureDir,
  isAlive,
  isOurProcess,
  LoggedError,
  readPidFile,
  removeFile,
  run,
  sleep,
  stopPid,
  writeJson,
  writePidFile,
} from './processes.mjs';
import { callerCaFile, databaseUrl, ensureSecrets, trustedCaFile } from './infra.mjs';
import { ensureIdentities, identityEnvironment, OPS_IDENTITY, tlsDescription } from './identities.mjs';
import { APP_PASSWORD, APP_ROLE } from './postgres.mjs';
import { REPLICA_PORT_STEP, REPLICAS_MAX } from './profiles.mjs';
import { RABBIT_PASSWORD, RABBIT_USER } from './rabbitmq.mjs';

const MIGRATION_TIMEOUT_MS = 120_000;
const READY_TIMEOUT_MS = 60_000;
/** The callers' longest reconnect backoff (960 ms with jitter), and a handshake on a loaded machine. */
const CALLERS_RECONNECT_MS = 2_000;
const READY_POLL_INTERVAL_MS = 500;
const HEALTH_CHECK_TIMEOUT_MS = 1_000;
// A service drains within SHUTDOWN_GRACE_MS (10 s) and runService exits 2 s after it at most:
// a replica restarted or stopped is never killed while it still drains.
const SERVICE_STOP_GRACE_MS = 15_000;
const EXTRA_ENV_PREFIX = 'STACK_ENV_';

// Variables a service inherits from the calling shell; everything else it gets is set
// below, so a service runs the same whatever the caller's shell holds. Anything more
// goes through STACK_ENV_<NAME>.
const INHERITED_VARIABLES = ['PATH', 'HOME', 'USER', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR', 'NODE_OPTIONS'];

export const SERVICE_NAMES = [
  'gateway',
  'trading',
  'ledger',
  'wallet-registry',
  'payouts',
  'collections',
  'notifier',
  'webhook-delivery',
];

/** Every identity the stack issues a certificate to: each service, and the ops tool. */
export const IDENTITY_NAMES = [...SERVICE_NAMES, OPS_IDENTITY];

/** Issues the certificates that are missing or due (7-day certificates, renewed 2 days ahead). */
export const ensureServiceIdentities = (profile) => ensureIdentities(profile, IDENTITY_NAMES);

/** name, folder (relative to the repository), database and environment-variable prefix. */
export const SERVICES = Object.freeze(
  SERVICE_NAMES.map((name) =>
    Object.freeze({
      name,
      folder: `services/${name}`,
      database: `svc_${name.replaceAll('-', '_')}`,
      envPrefix: name.toUpperCase().replaceAll('-', '_'),
    }),
  ),
);

export const DATABASE_NAMES = SERVICES.map((service) => service.database);

/** Replica numbers 1..count. */
const replicaNumbers = (count) => Array.from({ length: count }, (_, index) => index + 1);
const replicaOffset = (replica) => (replica - 1) * REPLICA_PORT_STEP;

export const grpcPort = (profile, service, replica = 1) => profile.ports.grpc[service.name] + replicaOffset(replica);
export const metricsPort = (profile, service, replica = 1) =>
  profile.ports.metrics[service.name] + replicaOffset(replica);
export const metricsUrl = (profile, service, replica = 1) =>
  `http://127.0.0.1:${metricsPort(profile, service, replica)}/metrics`;
export const grpcAddress = (profile, service, replica = 1) => `127.0.0.1:${grpcPort(profile, service, replica)}`;
/** Every replica of `service` in the profile, as a client's address: one host:port, or a comma-separated list. */
export const grpcAddresses = (profile, service) =>
  replicaNumbers(profile.replicas)
    .map((replica) => grpcAddress(profile, service, replica))
    .join(',');
export const amqpUrl = (profile) => `amqp://${RABBIT_USER}:${RABBIT_PASSWORD}@127.0.0.1:${profile.ports.amqp}/`;
export const redisUrl = (profile) => `redis://127.0.0.1:${profile.ports.redis}/0`;

const replicaName = (service, replica) => (replica === 1 ? service.name : `${service.name}-${replica}`);

const servicePaths = (profile, service, replica = 1) => ({
  dir: path.join(profile.repoRoot, service.folder),
  main: path.join(profile.repoRoot, service.folder, 'dist', 'main.js'),
  migrate: path.join(profile.repoRoot, service.folder, 'dist', 'migrate.js'),
  logFile: path.join(profile.logsDir, `${replicaName(service, replica)}.log`),
  migrateLogFile: path.join(profile.logsDir, `${service.name}-migrate.log`),
  pidFile: path.join(profile.pidsDir, `${replicaName(service, replica)}.pid`),
});

/** Every service's log files (serving, for every possible replica, and migrating), whether or not they exist yet. */
export function serviceLogFiles(profile) {
  return SERVICES.flatMap((service) => [
    servicePaths(profile, service).migrateLogFile,
    ...replicaNumbers(REPLICAS_MAX).map((replica) => servicePaths(profile, service, replica).logFile),
  ]);
}

/** STACK_ENV_FOO=bar in the caller's environment becomes FOO=bar for every service. */
export function extraEnvironment(env = process.env) {
  return Object.fromEntries(
    Object.entries(env)
      .filter(([name]) => name.startsWith(EXTRA_ENV_PREFIX) && name.length > EXTRA_ENV_PREFIX.length)
      .map(([name, value]) => [name.slice(EXTRA_ENV_PREFIX.length), value]),
  );
}

function peerAddresses(profile) {
  return Object.fromEntries(SERVICES.map((peer) => [`${peer.envPrefix}_GRPC_ADDR`, grpcAddresses(profile, peer)]));
}

/**
 * Node flags every service runs with (the image sets the same in its Dockerfile, which
 * says why): a 4 MiB young-generation semi-space instead of V8's 16 MiB, at no measurable
 * CPU cost since request garbage dies young either way, and an old generation of at most
 * 256 MiB, which bounds how far V8 lets a busy service's heap grow between full collections
 * (both measured in docs/performance.md).
 */
export const SERVICE_NODE_OPTIONS = '--max-semi-space-size=4 --max-old-space-size=256';

/**
 * Variables a service's deploy/base/<service>/config.env may set for the process itself
 * rather than for the service's configuration: Node's flags, and glibc malloc's arena count
 * (read by the C library when the process starts; docs/deploying.md says why the gateway
 * sets it). Kubernetes sets them from the same file, through the service's
 * ConfigMap; the local stack reads the same lines, so both run the process alike.
 */
export const RUNTIME_VARIABLES = Object.freeze(['NODE_OPTIONS', 'MALLOC_ARENA_MAX']);

/**
 * A service's runtime variables: those of RUNTIME_VARIABLES its config.env sets, and
 * NODE_OPTIONS always (SERVICE_NODE_OPTIONS, the image's, when the file names none: a line
 * there replaces the image's).
 */
export function serviceRuntimeEnvironment(profile, service) {
  const file = path.join(profile.repoRoot, 'deploy', 'base', service.name, 'config.env');
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const values = {};
  for (const name of RUNTIME_VARIABLES) {
    const line = new RegExp(`^${name}=(.*)$`, 'm').exec(text);
    if (line) values[name] = line[1].trim();
  }
  return { ...values, NODE_OPTIONS: values.NODE_OPTIONS ?? SERVICE_NODE_OPTIONS };
}

/** A service's Node flags (serviceRuntimeEnvironment's NODE_OPTIONS). */
export const serviceNodeOptions = (profile, service) => serviceRuntimeEnvironment(profile, service).NODE_OPTIONS;

/** The complete environment of one service (replica `replica`) in this profile. */
export function serviceEnvironment(profile, service, env = process.env, replica = 1) {
  const secrets = ensureSecrets(profile);
  const inherited = Object.fromEntries(
    INHERITED_VARIABLES.filter((name) => env[name]).map((name) => [name, env[name]]),
  );
  const runtime = serviceRuntimeEnvironment(profile, service);
  return {
    ...inherited,
    ...runtime,
    NODE_OPTIONS: [runtime.NODE_OPTIONS, env.NODE_OPTIONS].filter(Boolean).join(' '),
    PLATFORM_MODE: 'sandbox',
    LOG_LEVEL: 'info',
    ...identityEnvironment(profile, service.name),
    SANDBOX_TIME_SCALE: profile.sandboxTimeScale,
    DATABASE_URL: databaseUrl(profile, service.database),
    AMQP_URL: amqpUrl(profile),
    REDIS_URL: redisUrl(profile),
    GRPC_PORT: String(grpcPort(profile, service, replica)),
    METRICS_PORT: String(metricsPort(profile, service, replica)),
    ...(service.name === 'gateway' ? gatewayHttpEnvironment(profile) : {}),
    ...peerAddresses(profile),
    CREDENTIAL_ENCRYPTION_KEY: secrets.CREDENTIAL_ENCRYPTION_KEY,
    WEBHOOK_SECRET_ENCRYPTION_KEY: secrets.WEBHOOK_SECRET_ENCRYPTION_KEY,
    CODE_HASH_KEY: secrets.CODE_HASH_KEY,
    // The stack's CA, bundled with the caller's own NODE_EXTRA_CA_CERTS when there is one.
    NODE_EXTRA_CA_CERTS: trustedCaFile(profile, env),
    ...extraEnvironment(env),
  };
}

/** The partner port, shared by the gateway's replicas when there are several (the kernel spreads connections). */
function gatewayHttpEnvironment(profile) {
  return { HTTP_PORT: String(profile.ports.gatewayHttp), ...(profile.replicas > 1 ? { HTTP_REUSE_PORT: 'true' } : {}) };
}

function assertBuilt(file) {
  if (!existsSync(file))
    throw new Error(`${path.relative(process.cwd(), file)} is missing: build first (npx turbo run build)`);
}

// ---------------------------------------------------------------- migrate

/** Runs one service's migrations; a failure names its log. */
export async function migrateService(profile, service) {
  ensureDir(profile.logsDir);
  const files = servicePaths(profile, service);
  assertBuilt(files.migrate);
  await run(process.execPath, [files.migrate], {
    cwd: files.dir,
    env: serviceEnvironment(profile, service),
    logFile: files.migrateLogFile,
    timeoutMs: MIGRATION_TIMEOUT_MS,
  });
}

/** Runs every service's migrations, one service after another. */
export async function migrateAll(profile) {
  for (const service of SERVICES) await migrateService(profile, service);
}

// ---------------------------------------------------------------- start, status, stop

/** The PID of a running replica of a service (checked against its command line), or null. */
export function servicePid(profile, service, replica = 1) {
  const files = servicePaths(profile, service, replica);
  const pid = readPidFile(files.pidFile);
  return pid && isOurProcess(pid, files.main) ? pid : null;
}

/**
 * Every port a replica listens on alone: gRPC and metrics, plus HTTP for a single
 * gateway (several share it, so another replica may hold it while one restarts).
 */
function servicePorts(profile, service, replica) {
  const http = service.name === 'gateway' && profile.replicas === 1 ? [profile.ports.gatewayHttp] : [];
  return [grpcPort(profile, service, replica), metricsPort(profile, service, replica), ...http];
}

async function startService(profile, service, replica) {
  const files = servicePaths(profile, service, replica);
  assertBuilt(files.main);
  // A port held by something else would make the service fail later, less clearly.
  for (const port of servicePorts(profile, service, replica)) await assertPortFree(port, replicaName(service, replica));
  const logFd = openSync(files.logFile, 'a');
  const child = spawn(process.execPath, [files.main], {
    cwd: files.dir,
    env: serviceEnvironment(profile, service, process.env, replica),
    detached: true,
    stdio: ['ignore', logFd, logFd],
  });
  closeSync(logFd);
  child.unref();
  writePidFile(files.pidFile, child.pid);
}

/** Starts every replica not already running. Resolves to the names of those it started (trading, trading-2, …). */
export async function startAll(profile) {
  ensureDir(profile.logsDir);
  ensureDir(profile.pidsDir);
  const started = [];
  for (const service of SERVICES) {
    for (const replica of replicaNumbers(profile.replicas)) {
      if (servicePid(profile, service, replica)) continue;
      await startService(profile, service, replica);
      started.push(replicaName(service, replica));
    }
  }
  return started;
}

/** The replicas of a service the profile asks for, and any other still running (started with a larger STACK_REPLICAS). */
function replicasOf(profile, service) {
  return replicaNumbers(REPLICAS_MAX).filter(
    (replica) => replica <= profile.replicas || servicePid(profile, service, replica),
  );
}

function replicaStatus(profile, service, replica) {
  const pid = servicePid(profile, service, replica);
  return {
    replica,
    pid,
    running: pid !== null,
    grpc: grpcAddress(profile, service, replica),
    metrics: metricsUrl(profile, service, replica),
  };
}

/** Each service: its first replica's fields (name, pid, running, grpc, metrics), and every replica's under `replicas`. */
export function servicesStatus(profile) {
  return SERVICES.map((service) => {
    const replicas = replicasOf(profile, service).map((replica) => replicaStatus(profile, service, replica));
    const { replica: _first, ...first } = replicas[0];
    return { name: service.name, ...first, replicas };
  });
}

export const allServicesRunning = (profile) =>
  servicesStatus(profile).every((service) =>
    service.replicas.filter(({ replica }) => replica <= profile.replicas).every(({ running }) => running),
  );

/** SIGTERM to every replica of every service, up to 15 s to drain, then SIGKILL. Removes stack.json. */
export async function stopAll(profile) {
  removeFile(profile.stackFile);
  removeFile(serviceEnvFile(profile));
  const outcomes = await Promise.all(
    SERVICES.flatMap((service) =>
      replicaNumbers(REPLICAS_MAX).map(async (replica) => {
        const pid = servicePid(profile, service, replica);
        const outcome = pid ? await stopPid(pid, { graceMs: SERVICE_STOP_GRACE_MS }) : 'not running';
        removeFile(servicePaths(profile, service, replica).pidFile);
        return { name: replicaName(service, replica), outcome };
      }),
    ),
  );
  return outcomes.filter(({ outcome }) => outcome !== 'not running');
}

// ---------------------------------------------------------------- readiness

const SILENT_LOGGER = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child() {
    return SILENT_LOGGER;
  },
};

/** checkHealth(address, service) over mutual TLS, as the ops identity (health admits any identity of the CA). */
function loadHealthCheck(profile) {
  const helper = path.join(profile.repoRoot, 'libs', 'grpc', 'dist', 'index.js');
  assertBuilt(helper);
  const { checkHealth, TlsMaterial } = createRequire(import.meta.url)(helper);
  if (typeof checkHealth !== 'function' || typeof TlsMaterial !== 'function')
    throw new Error(`${helper} does not export checkHealth and TlsMaterial`);
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

async function isServiceReady(profile, { service, replica }, checkHealth) {
  const serving = await checkHealth(
    grpcAddress(profile, service, replica),
    service.name,
    HEALTH_CHECK_TIMEOUT_MS,
  ).catch(() => false);
  if (!serving || service.name !== 'gateway') return serving;
  return (await httpStatus(`${profile.gatewayUrl}/healthz`, HEALTH_CHECK_TIMEOUT_MS)) === 200;
}

/**
 * Waits until every given replica ({ service, replica }; default: all the profile's)
 * answers SERVING on grpc.health.v1 (and the gateway 200 on /healthz). Fails at once
 * when a replica's process exits, naming its log.
 */
export async function waitReady(
  profile,
  replicas = SERVICES.flatMap((service) => replicaNumbers(profile.replicas).map((replica) => ({ service, replica }))),
) {
  const checkHealth = loadHealthCheck(profile);
  const pending = new Set(replicas);
  const deadline = Date.now() + READY_TIMEOUT_MS;
  const describe = (items, field) =>
    [...items]
      .map(({ service, replica }) =>
        field === 'log' ? servicePaths(profile, service, replica).logFile : replicaName(service, replica),
      )
      .join(', ');
  while (pending.size > 0) {
    for (const item of pending) {
      const files = servicePaths(profile, item.service, item.replica);
      const pid = readPidFile(files.pidFile);
      if (!pid || !isAlive(pid))
        throw new LoggedError(`${replicaName(item.service, item.replica)} exited during start`, files.logFile);
      if (await isServiceReady(profile, item, checkHealth)) pending.delete(item);
    }
    if (pending.size === 0) break;
    if (Date.now() >= deadline) {
      throw new LoggedError(
        `not ready after ${READY_TIMEOUT_MS / 1000} s: ${describe(pending)}`,
        describe(pending, 'log'),
      );
    }
    await sleep(READY_POLL_INTERVAL_MS);
  }
}

// ---------------------------------------------------------------- rolling restart

/**
 * Restarts the replicas of one service one at a time: SIGTERM (the service drains:
 * NOT_SERVING, in-flight calls finished, claims handed back), then the same replica
 * started again, and the next only once this one answers SERVING. Its callers keep
 * being served by the other replicas meanwhile. Resolves to what each replica did.
 */
export async function restartService(profile, service) {
  const outcomes = [];
  for (const [index, replica] of replicasOf(profile, service).entries()) {
    // Callers reconnect to a replica that is back within a second (their reconnect
    // backoff, libs/grpc channel.ts): until then the one about to stop may be all they reach.
    if (index > 0) await sleep(CALLERS_RECONNECT_MS);
    const pid = servicePid(profile, service, replica);
    const stopped = pid ? await stopPid(pid, { graceMs: SERVICE_STOP_GRACE_MS }) : 'not running';
    await startService(profile, service, replica);
    await waitReady(profile, [{ service, replica }]);
    outcomes.push(
      `${replicaName(service, replica)} ${stopped === 'not running' ? 'started' : `${stopped} and started`}`,
    );
  }
  return outcomes;
}

export function serviceNamed(name) {
  const service = SERVICES.find((candidate) => candidate.name === name);
  if (!service) throw new Error(`no service named "${name}" (one of ${SERVICE_NAMES.join(', ')})`);
  return service;
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
    // Every replica's gRPC address and metrics endpoint (STACK_REPLICAS; one each by default).
    replicas: Object.fromEntries(
      SERVICES.map((service) => [
        service.name,
        replicaNumbers(profile.replicas).map((replica) => ({
          replica,
          grpc: grpcAddress(profile, service, replica),
          metricsUrl: metricsUrl(profile, service, replica),
        })),
      ]),
    ),
    // Each service's Prometheus endpoint (GET /metrics).
    metricsUrls: Object.fromEntries(SERVICES.map((service) => [service.name, metricsUrl(profile, service)])),
    webhookDeliveryMetricsUrl: metricsUrl(
      profile,
      SERVICES.find((service) => service.name === 'webhook-delivery'),
    ),
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
  const environments = Object.fromEntries(
    SERVICES.map((service) => [service.name, serviceEnvironment(profile, service)]),
  );
  writeJson(serviceEnvFile(profile), environments, 0o600);
  return profile.stackFile;
}
