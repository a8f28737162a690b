// Proves the gateway configuration fails fast on anything missing or malformed
// and fills in the documented defaults.
import { configProblems, loadConfig } from '@platform/config';
import { configSchema } from './config';

const fullEnv = {
  DATABASE_URL: 'postgres://platform:platform@127.0.0.1:25432/svc_gateway',
  PLATFORM_MODE: 'sandbox',
  TLS_CA_FILE: '/tls/ca.pem',
  TLS_CERT_FILE: '/tls/gateway.pem',
  TLS_KEY_FILE: '/tls/gateway-key.pem',
  GRPC_PORT: '7000',
  HTTP_PORT: '8080',
  REDIS_URL: 'redis://127.0.0.1:25379/0',
  CREDENTIAL_ENCRYPTION_KEY: 'ab'.repeat(32),
  TRADING_GRPC_ADDR: '127.0.0.1:7001',
  LEDGER_GRPC_ADDR: '127.0.0.1:7002',
  WALLET_REGISTRY_GRPC_ADDR: '127.0.0.1:7003',
  NOTIFIER_GRPC_ADDR: '127.0.0.1:7006',
  COLLECTIONS_GRPC_ADDR: '127.0.0.1:7005',
  PAYOUTS_GRPC_ADDR: '127.0.0.1:7004',
  WEBHOOK_DELIVERY_GRPC_ADDR: '127.0.0.1:7007',
};

const problemsOf = (env: NodeJS.ProcessEnv): string[] => configProblems(configSchema, env);

describe('gateway configSchema', () => {
  it('accepts a full environment and fills in the defaults', () => {
    expect(loadConfig(configSchema, fullEnv)).toMatchObject({
      HTTP_PORT: 8080,
      RATE_LIMIT_PER_MINUTE_DEFAULT: 120,
      UPSTREAM_DEADLINE_MS: 5_000,
      TRADING_BATCH_ITEMS_MAX: 64,
      TRADING_BATCH_WINDOW_MS: 0,
      PLATFORM_MODE: 'sandbox',
    });
  });

  it.each(Object.keys(fullEnv))('refuses an environment without %s', (name) => {
    const env: NodeJS.ProcessEnv = { ...fullEnv };
    delete env[name];
    expect(problemsOf(env).some((problem) => problem.startsWith(`${name}:`))).toBe(true);
  });

  it.each([
    ['CREDENTIAL_ENCRYPTION_KEY', 'ab'.repeat(31)],
    ['REDIS_URL', 'http://127.0.0.1:1'],
    ['TRADING_GRPC_ADDR', 'not an address'],
    ['RATE_LIMIT_PER_MINUTE_DEFAULT', '0'],
    ['UPSTREAM_DEADLINE_MS', '-1'],
    ['TRADING_BATCH_ITEMS_MAX', '-1'],
    ['TRADING_BATCH_ITEMS_MAX', '257'],
    ['TRADING_BATCH_WINDOW_MS', '2'],
    ['PAYOUTS_GRPC_ADDR', 'x'],
  ])('refuses a malformed %s', (name, value) => {
    expect(problemsOf({ ...fullEnv, [name]: value }).some((problem) => problem.startsWith(`${name}:`))).toBe(true);
  });
});
