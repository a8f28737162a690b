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
    webhookDeliveryMetrics: 9107,
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
  },
  test: {
    postgres: 21432,
    redis: 21379,
    amqp: 21672,
    rabbitDistribution: 21671,
    epmd: 21369,
    gatewayHttp: 18080,
    webhookDeliveryMetrics: 19107,
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

/** The profile `name` ('dev' or 'test'): folders, ports and defaults, read once. */
export function loadProfile(name, env = process.env) {
  if (!PORTS[name]) throw new Error(`unknown profile "${name}" (expected ${PROFILE_NAMES.join(' or ')})`);
  const stackDir = path.join(REPO_ROOT, STACK_FOLDERS[name]);
  const ports = { ...PORTS[name], gatewayHttp: gatewayHttpPort(name, env) };
  return Object.freeze({
    name,
    repoRoot: REPO_ROOT,
    stackDir,
    ports: Object.freeze(ports),
    rabbitNodeName: `${name}-rabbit@localhost`,
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
