// Proves the administrators' waiting period: 24 hours unless configured,
// bounded (at least a minute, at most a week, so a typo cannot switch the
// protection off or lock new administrators out for good), scaled by
// SANDBOX_TIME_SCALE in sandbox mode only, never in production.
import { configProblems, loadConfig } from '@platform/config';
import { configSchema, effectiveAdminWaitingPeriodMs } from './config';

const fullEnv = {
  DATABASE_URL: 'postgres://platform:platform@127.0.0.1:25432/svc_wallet_registry',
  PLATFORM_MODE: 'sandbox',
  TLS_CA_FILE: '/tls/ca.pem',
  TLS_CERT_FILE: '/tls/wallet-registry.pem',
  TLS_KEY_FILE: '/tls/wallet-registry-key.pem',
  GRPC_PORT: '7003',
  CODE_HASH_KEY: '3f'.repeat(32),
  NOTIFIER_GRPC_ADDR: '127.0.0.1:7006',
};

const problemsOf = (env: NodeJS.ProcessEnv): string[] => configProblems(configSchema, env);

describe("the administrators' waiting period", () => {
  it('is 24 hours unless configured', () => {
    expect(loadConfig(configSchema, fullEnv).ADMIN_WAITING_PERIOD_MS).toBe(24 * 60 * 60 * 1_000);
  });

  it.each(['59999', '604800001', '0', '-1', 'a day'])('refuses %p', (value) => {
    expect(
      problemsOf({ ...fullEnv, ADMIN_WAITING_PERIOD_MS: value }).some((problem) =>
        problem.startsWith('ADMIN_WAITING_PERIOD_MS:'),
      ),
    ).toBe(true);
  });

  it('is scaled in sandbox mode only', () => {
    const settings = { ADMIN_WAITING_PERIOD_MS: 200_000, SANDBOX_TIME_SCALE: 0.05 };
    expect(effectiveAdminWaitingPeriodMs({ ...settings, PLATFORM_MODE: 'sandbox' })).toBe(10_000);
    expect(effectiveAdminWaitingPeriodMs({ ...settings, PLATFORM_MODE: 'production' })).toBe(200_000);
  });

  it('never scales below one second', () => {
    expect(
      effectiveAdminWaitingPeriodMs({
        ADMIN_WAITING_PERIOD_MS: 60_000,
        SANDBOX_TIME_SCALE: 0.001,
        PLATFORM_MODE: 'sandbox',
      }),
    ).toBe(1_000);
  });
});
