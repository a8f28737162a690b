// Proves the payouts configuration fails fast on anything missing or malformed
// (so the service never opens a port half-configured) and accepts a full
// environment with the documented defaults filled in.
import { configProblems, loadConfig } from '@platform/config';
import { configSchema, wrongCodeBudget } from './config';

const fullEnv = {
  DATABASE_URL: 'postgres://platform:platform@127.0.0.1:25432/svc_payouts',
  PLATFORM_MODE: 'sandbox',
  TLS_CA_FILE: '/tls/ca.pem',
  TLS_CERT_FILE: '/tls/payouts.pem',
  TLS_KEY_FILE: '/tls/payouts-key.pem',
  GRPC_PORT: '7004',
  AMQP_URL: 'amqp://platform:platform@127.0.0.1:25672/',
  LEDGER_GRPC_ADDR: '127.0.0.1:7002',
  TRADING_GRPC_ADDR: '127.0.0.1:7001',
  WALLET_REGISTRY_GRPC_ADDR: '127.0.0.1:7003',
  NOTIFIER_GRPC_ADDR: '127.0.0.1:7006',
  CODE_HASH_KEY: 'ab'.repeat(32),
};

const problemsOf = (env: NodeJS.ProcessEnv): string[] => configProblems(configSchema, env);

describe('payouts configSchema', () => {
  it('accepts a full environment and fills in the defaults', () => {
    const config = loadConfig(configSchema, fullEnv);
    expect(config).toMatchObject({
      DATABASE_URL: fullEnv.DATABASE_URL,
      GRPC_PORT: 7004,
      AMQP_URL: fullEnv.AMQP_URL,
      PLATFORM_MODE: 'sandbox',
      LOG_LEVEL: 'info',
      SANDBOX_TIME_SCALE: 1,
      SHUTDOWN_GRACE_MS: 10_000,
    });
  });

  it.each([
    'DATABASE_URL',
    'GRPC_PORT',
    'AMQP_URL',
    'CODE_HASH_KEY',
    'TRADING_GRPC_ADDR',
    'WALLET_REGISTRY_GRPC_ADDR',
    'NOTIFIER_GRPC_ADDR',
  ])('refuses an environment without %s', (name) => {
    const env: NodeJS.ProcessEnv = { ...fullEnv };
    delete env[name];
    expect(problemsOf(env).some((problem) => problem.startsWith(`${name}:`))).toBe(true);
  });

  it('leases steps and creates for 3 s renewed every second, and refuses a renewal that could miss a lease', () => {
    expect(loadConfig(configSchema, fullEnv)).toMatchObject({
      PAYOUT_STEP_LEASE_MS: 3_000,
      TRANSFER_CREATE_LEASE_MS: 3_000,
      PAYOUT_LEASE_RENEW_MS: 1_000,
    });
    expect(problemsOf({ ...fullEnv, PAYOUT_LEASE_RENEW_MS: '1600' })[0]).toMatch(
      /^PAYOUT_LEASE_RENEW_MS: .*at most half of PAYOUT_STEP_LEASE_MS \(3000 ms\)/,
    );
    expect(problemsOf({ ...fullEnv, PAYOUT_STEP_LEASE_MS: '10000', PAYOUT_LEASE_RENEW_MS: '2000' })[0]).toMatch(
      /TRANSFER_CREATE_LEASE_MS \(3000 ms\)/,
    );
    expect(problemsOf({ ...fullEnv, TRANSFER_CREATE_LEASE_MS: '500' })[0]).toMatch(/^TRANSFER_CREATE_LEASE_MS:/);
    expect(problemsOf({ ...fullEnv, PAYOUT_STEP_LEASE_MS: '4000', PAYOUT_LEASE_RENEW_MS: '1500' })).toEqual([]);
  });

  it('bounds the wrong-code budget and its window, defaulting to 20 per 24 hours', () => {
    const config = loadConfig(configSchema, fullEnv);
    expect(wrongCodeBudget(config)).toEqual({ wrongCodesMax: 20, windowMs: 86_400_000 });
    expect(
      wrongCodeBudget(
        loadConfig(configSchema, {
          ...fullEnv,
          CONFIRMATION_WRONG_CODE_BUDGET: '4',
          CONFIRMATION_WRONG_CODE_WINDOW_MS: '60000',
        }),
      ),
    ).toEqual({ wrongCodesMax: 4, windowMs: 60_000 });
    const namesOf = (env: NodeJS.ProcessEnv) => [...new Set(problemsOf(env).map((problem) => problem.split(':')[0]))];
    for (const budget of ['0', '1001', '2.5', 'many']) {
      expect(namesOf({ ...fullEnv, CONFIRMATION_WRONG_CODE_BUDGET: budget })).toEqual([
        'CONFIRMATION_WRONG_CODE_BUDGET',
      ]);
    }
    for (const windowMs of ['59999', String(30 * 24 * 60 * 60_000 + 1)]) {
      expect(namesOf({ ...fullEnv, CONFIRMATION_WRONG_CODE_WINDOW_MS: windowMs })).toEqual([
        'CONFIRMATION_WRONG_CODE_WINDOW_MS',
      ]);
    }
  });

  it('names every bad variable at once', () => {
    const problems = problemsOf({
      ...fullEnv,
      DATABASE_URL: 'mysql://x/y',
      GRPC_PORT: '70000',
      AMQP_URL: 'http://broker/',
    });
    expect(problems.map((problem) => problem.split(':')[0]).sort()).toEqual(['AMQP_URL', 'DATABASE_URL', 'GRPC_PORT']);
  });
});
