// Proves the collections configuration fails fast on anything missing or malformed
// (so the service never opens a port half-configured) and accepts a full
// environment with the documented defaults filled in.
import { configProblems, loadConfig } from '@platform/config';
import { configSchema, effectiveLifetimeMs } from './config';

const fullEnv = {
  DATABASE_URL: 'postgres://platform:platform@127.0.0.1:25432/svc_collections',
  PLATFORM_MODE: 'sandbox',
  TLS_CA_FILE: '/tls/ca.pem',
  TLS_CERT_FILE: '/tls/collections.pem',
  TLS_KEY_FILE: '/tls/collections-key.pem',
  GRPC_PORT: '7005',
  AMQP_URL: 'amqp://platform:platform@127.0.0.1:25672/',
  LEDGER_GRPC_ADDR: '127.0.0.1:7002',
};

const problemsOf = (env: NodeJS.ProcessEnv): string[] => configProblems(configSchema, env);

describe('collections configSchema', () => {
  it('accepts a full environment and fills in the defaults', () => {
    const config = loadConfig(configSchema, fullEnv);
    expect(config).toMatchObject({
      DATABASE_URL: fullEnv.DATABASE_URL,
      GRPC_PORT: 7005,
      AMQP_URL: fullEnv.AMQP_URL,
      LEDGER_GRPC_ADDR: fullEnv.LEDGER_GRPC_ADDR,
      PLATFORM_MODE: 'sandbox',
      LOG_LEVEL: 'info',
      SANDBOX_TIME_SCALE: 1,
      SHUTDOWN_GRACE_MS: 10_000,
      COLLECTION_FEE_BPS_DEFAULT: 100,
      COLLECTION_FEE_FLAT_MINOR_DEFAULT: 30,
      COLLECTION_FEE_CAP_MINOR_DEFAULT: 2_500,
    });
  });

  it.each(['DATABASE_URL', 'GRPC_PORT', 'AMQP_URL', 'LEDGER_GRPC_ADDR'])(
    'refuses an environment without %s',
    (name) => {
      const env: NodeJS.ProcessEnv = { ...fullEnv };
      delete env[name];
      expect(problemsOf(env).some((problem) => problem.startsWith(`${name}:`))).toBe(true);
    },
  );

  it('names every bad variable at once', () => {
    const problems = problemsOf({
      DATABASE_URL: 'mysql://x/y',
      GRPC_PORT: '70000',
      AMQP_URL: 'http://broker/',
      LEDGER_GRPC_ADDR: 'ledger',
    });
    expect(problems.map((problem) => problem.split(':')[0]).sort()).toEqual([
      'AMQP_URL',
      'DATABASE_URL',
      'GRPC_PORT',
      'LEDGER_GRPC_ADDR',
      'PLATFORM_MODE',
      'TLS_CA_FILE',
      'TLS_CERT_FILE',
      'TLS_KEY_FILE',
    ]);
  });

  it('refuses a default cap below the default flat fee', () => {
    expect(
      problemsOf({ ...fullEnv, COLLECTION_FEE_FLAT_MINOR_DEFAULT: '100', COLLECTION_FEE_CAP_MINOR_DEFAULT: '99' }).some(
        (problem) => problem.startsWith('COLLECTION_FEE_CAP_MINOR_DEFAULT:'),
      ),
    ).toBe(true);
  });

  it('scales the lifetime in sandbox mode only', () => {
    const config = loadConfig(configSchema, { ...fullEnv, SANDBOX_TIME_SCALE: '0.5', COLLECTION_LIFETIME_MS: '1000' });
    expect(effectiveLifetimeMs(config)).toBe(500);
    expect(effectiveLifetimeMs({ ...config, PLATFORM_MODE: 'production' })).toBe(1000);
  });
});
