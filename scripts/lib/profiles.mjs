// The two local stacks: `dev` (npm start, .stack/) and `test` (npm test, .stack-test/).
// Ports come from docs/conventions.md; change them there and here together. Every port
// is below 32768: RabbitMQ once failed with eaddrinuse on a port in the ephemeral range.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));

const PORTS = {
  dev: {
    postgres: 25432,
    redis: 25379,
    amqp: 25672,
    rabbitDistribution: 25671,
    epmd: 25369,
    gatewayHttp: 8080,
    grpc: {
      gateway: 7000,
      trading: 7001,
      ledger: 7002,
      'wallet-registry': 7003,
      payouts: 7004,
      collections: 7005,
      notifier: 7006,
      'webhook-delivery': 7007,
    },
    // Every service's Prometheus endpoint: 9100 + its place, as its gRPC port is 7000 + it.
    metrics: {
      gateway: 9100,
      trading: 9101,
      ledger: 9102,
      'wallet-registry': 9103,
      payouts: 9104,
      collections: 9105,
      notifier: 9106,
      'webhook-delivery': 9107,
    },
  },
  test: {
    postgres: 21432,
    redis: 21379,
    amqp: 21672,
    rabbitDistribution: 21671,
    epmd: 21369,
    gatewayHttp: 18080,
    grpc: {
      gateway: 17000,
      trading: 17001,
      ledger: 17002,
      'wallet-registry': 17003,
      payouts: 17004,
      collections: 17005,
      notifier: 17006,
      'webhook-delivery': 17007,
    },
    metrics: {
      gateway: 19100,
      trading: 19101,
      ledger: 19102,
      'wallet-registry': 19103,
      payouts: 19104,
      collections: 19105,
      notifier: 19106,
      'webhook-delivery': 19107,
    },
  },
};

const STACK_FOLDERS = { dev: '.stack', test: '.stack-test' };

// The test stack runs sandbox delays 20 times faster so retry schedules fit in a test run.
const SANDBOX_TIME_SCALE_DEFAULTS = { dev: '1', test: '0.05' };

export const PROFILE_NAMES = Object.keys(PORTS);

function gatewayHttpPort(name, env) {
  if (name !== 'dev' || !env.GATEWAY_PORT) return PORTS[name].gatewayHttp;
  const port = Number(env.GATEWAY_PORT);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`GATEWAY_PORT must be a port number, got "${env.GATEWAY_PORT}"`);
  }
  return port;
}

// TEST_STACK_SLOT=1..9 gives a test stack of its own (ports + 100 × slot, folder
// .stack-test-<slot>/), so several engineers can run `npm test` in one checkout at once.
const TEST_STACK_SLOT_MAX = 9;
const SLOT_PORT_STEP = 100;

function testSlot(name, env) {
  if (name !== 'test' || !env.TEST_STACK_SLOT) return 0;
  const slot = Number(env.TEST_STACK_SLOT);
  if (!Number.isInteger(slot) || slot < 1 || slot > TEST_STACK_SLOT_MAX) {
    throw new Error(`TEST_STACK_SLOT must be 1..${TEST_STACK_SLOT_MAX}, got "${env.TEST_STACK_SLOT}"`);
  }
  return slot;
}

function shiftPorts(ports, offset) {
  const shifted = {};
  for (const [key, value] of Object.entries(ports)) {
    shifted[key] = typeof value === 'number' ? value + offset : shiftPorts(value, offset);
  }
  return shifted;
}

// STACK_REPLICAS=N runs N copies of every service. Replica r (1-based) of a service listens
// on its gRPC and metrics ports + 10 × (r - 1); the gateway's replicas share the partner port.
export const REPLICAS_MAX = 4;
export const REPLICA_PORT_STEP = 10;

function replicaCount(env) {
  if (!env.STACK_REPLICAS) return 1;
  const count = Number(env.STACK_REPLICAS);
  if (!Number.isInteger(count) || count < 1 || count > REPLICAS_MAX) {
    throw new Error(`STACK_REPLICAS must be 1..${REPLICAS_MAX}, got "${env.STACK_REPLICAS}"`);
  }
  return count;
}

/** The profile `name` ('dev' or 'test'): folders, ports and defaults, read once. */
export function loadProfile(name, env = process.env) {
  if (!PORTS[name]) throw new Error(`unknown profile "${name}" (expected ${PROFILE_NAMES.join(' or ')})`);
  const slot = testSlot(name, env);
  const stackDir = path.join(REPO_ROOT, slot ? `${STACK_FOLDERS[name]}-${slot}` : STACK_FOLDERS[name]);
  const ports = shiftPorts({ ...PORTS[name], gatewayHttp: gatewayHttpPort(name, env) }, slot * SLOT_PORT_STEP);
  return Object.freeze({
    name,
    repoRoot: REPO_ROOT,
    stackDir,
    ports: Object.freeze(ports),
    rabbitNodeName: `${name}${slot || ''}-rabbit@localhost`,
    replicas: replicaCount(env),
    sandboxTimeScale: env.SANDBOX_TIME_SCALE || SANDBOX_TIME_SCALE_DEFAULTS[name],
    logsDir: path.join(stackDir, 'logs'),
    pidsDir: path.join(stackDir, 'pids'),
    tlsDir: path.join(stackDir, 'tls'),
    secretsFile: path.join(stackDir, 'secrets.json'),
    stackFile: path.join(stackDir, 'stack.json'),
    partnerFile: path.join(stackDir, 'partner.json'),
    gatewayUrl: `http://127.0.0.1:${ports.gatewayHttp}`,
  });
}
