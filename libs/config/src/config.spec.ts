// Proves that configuration fails fast and lists every problem at once; that
// PLATFORM_MODE has no default; that listeners (metrics too) default to this machine only;
// that TLS paths must be absolute; that a connection's age is bounded (an hour at
// most) and defaults to half an hour; that traces are exported only to a configured
// http(s) OTLP endpoint, with a sample ratio within 0..1; that a sealing key ring is
// parsed and validated; that production mode refuses published development keys; and that
// sandbox delays are scaled in sandbox mode only, never below their floor.
import {
  commonServiceEnv,
  ConfigError,
  developmentKeyProblem,
  hexKey32,
  loadConfig,
  metricsEnv,
  refuseDevelopmentKeysInProduction,
  sandboxScaledMs,
  sealingKeyRing,
  z,
} from './index';

const schema = z.object({ ...commonServiceEnv, KEY: hexKey32() });
const TLS = { TLS_CA_FILE: '/tls/ca.pem', TLS_CERT_FILE: '/tls/service.pem', TLS_KEY_FILE: '/tls/service-key.pem' };
const base = {
  DATABASE_URL: 'postgres://u:p@localhost:5432/db',
  GRPC_PORT: '7001',
  PLATFORM_MODE: 'sandbox',
  KEY: 'a'.repeat(64),
  ...TLS,
};
const RANDOM_KEY = '3f9a1c7e5b2d4086a1e9c3b7d5f20846e1a3c5b7d9f0213546789abcdef01234';

function problemsOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.join('\n');
    throw error;
  }
  throw new Error('expected ConfigError');
}

describe('loadConfig', () => {
  it('applies defaults and coerces numbers; listens on this machine only unless told', () => {
    const config = loadConfig(schema, base);
    expect(config.GRPC_PORT).toBe(7001);
    expect(config.PLATFORM_MODE).toBe('sandbox');
    expect(config.SANDBOX_TIME_SCALE).toBe(1);
    expect(config.GRPC_HOST).toBe('127.0.0.1');
    expect(config.HEALTH_PORT).toBeUndefined();
    expect(config.TLS_RELOAD_INTERVAL_MS).toBe(10_000);
    expect(config.GRPC_MAX_CONNECTION_AGE_MS).toBe(1_800_000);
    expect(config.GRPC_MAX_CONNECTION_AGE_GRACE_MS).toBe(30_000);
    expect(loadConfig(schema, { ...base, GRPC_HOST: '0.0.0.0' }).GRPC_HOST).toBe('0.0.0.0');
  });

  it('exports traces only when an http(s) OTLP endpoint is configured, sampling a ratio within 0..1', () => {
    expect(loadConfig(schema, base).OTEL_EXPORTER_OTLP_ENDPOINT).toBeUndefined();
    expect(loadConfig(schema, base).OTEL_TRACES_SAMPLER_ARG).toBe(1);
    const exporting = loadConfig(schema, {
      ...base,
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
    });
    expect(exporting.OTEL_EXPORTER_OTLP_ENDPOINT).toBe('http://otel-collector:4318');
    expect(exporting.OTEL_TRACES_SAMPLER_ARG).toBe(0.25);
    const problems = problemsOf(() =>
      loadConfig(schema, { ...base, OTEL_EXPORTER_OTLP_ENDPOINT: 'otel-collector:4318', OTEL_TRACES_SAMPLER_ARG: '2' }),
    );
    expect(problems).toContain('OTEL_EXPORTER_OTLP_ENDPOINT');
    expect(problems).toContain('OTEL_TRACES_SAMPLER_ARG');
  });

  it("serves metrics on the service's default port, on this machine only unless told", () => {
    const withMetrics = z.object({ ...commonServiceEnv, ...metricsEnv(9104) });
    expect(loadConfig(withMetrics, base)).toMatchObject({ METRICS_PORT: 9104, HTTP_HOST: '127.0.0.1' });
    expect(loadConfig(withMetrics, { ...base, METRICS_PORT: '19304', HTTP_HOST: '0.0.0.0' })).toMatchObject({
      METRICS_PORT: 19304,
      HTTP_HOST: '0.0.0.0',
    });
    expect(problemsOf(() => loadConfig(withMetrics, { ...base, METRICS_PORT: '70000' }))).toMatch(/METRICS_PORT/);
  });

  it('names every invalid variable in one error', () => {
    const problems = problemsOf(() =>
      loadConfig(schema, { ...base, DATABASE_URL: 'mysql://x', GRPC_PORT: '99999', KEY: 'short' }),
    );
    expect(problems).toContain('DATABASE_URL');
    expect(problems).toContain('GRPC_PORT');
    expect(problems).toContain('KEY');
  });

  it('has no default platform mode, and refuses an unknown one', () => {
    const { PLATFORM_MODE: _mode, ...withoutMode } = base;
    expect(problemsOf(() => loadConfig(schema, withoutMode))).toMatch(/PLATFORM_MODE: required/);
    expect(problemsOf(() => loadConfig(schema, { ...base, PLATFORM_MODE: 'prod' }))).toMatch(/PLATFORM_MODE/);
  });

  it('requires the three TLS files, as absolute paths', () => {
    const problems = problemsOf(() =>
      loadConfig(schema, { ...base, TLS_CA_FILE: 'tls/ca.pem', TLS_CERT_FILE: undefined }),
    );
    expect(problems).toMatch(/TLS_CA_FILE: expected an absolute path/);
    expect(problems).toMatch(/TLS_CERT_FILE/);
  });

  it('bounds how long a connection, and so the identity proved at its handshake, is served', () => {
    expect(
      loadConfig(schema, { ...base, GRPC_MAX_CONNECTION_AGE_MS: '3600000', GRPC_MAX_CONNECTION_AGE_GRACE_MS: '5000' }),
    ).toMatchObject({ GRPC_MAX_CONNECTION_AGE_MS: 3_600_000, GRPC_MAX_CONNECTION_AGE_GRACE_MS: 5_000 });
    const problems = problemsOf(() =>
      loadConfig(schema, { ...base, GRPC_MAX_CONNECTION_AGE_MS: '3600001', GRPC_MAX_CONNECTION_AGE_GRACE_MS: '0' }),
    );
    expect(problems).toMatch(/GRPC_MAX_CONNECTION_AGE_MS/);
    expect(problems).toMatch(/GRPC_MAX_CONNECTION_AGE_GRACE_MS/);
    expect(problemsOf(() => loadConfig(schema, { ...base, GRPC_MAX_CONNECTION_AGE_MS: '59999' }))).toMatch(
      /GRPC_MAX_CONNECTION_AGE_MS/,
    );
  });
});

describe('sealing key rings and development keys', () => {
  const ringSchema = z
    .object({ ...commonServiceEnv, SEALING_KEYS: sealingKeyRing(), CODE_KEY: hexKey32() })
    .superRefine(refuseDevelopmentKeysInProduction('SEALING_KEYS', 'CODE_KEY'));
  const env = { ...base, SEALING_KEYS: `k2:${RANDOM_KEY},k1:${'feedface'.repeat(8)}`, CODE_KEY: RANDOM_KEY };

  it('parses a ring, current key first', () => {
    expect(loadConfig(ringSchema, env).SEALING_KEYS.currentKeyId).toBe('k2');
  });

  it('refuses a malformed ring, naming the variable but not the key', () => {
    const problems = problemsOf(() =>
      loadConfig(ringSchema, { ...env, SEALING_KEYS: `k2:${RANDOM_KEY},k2:${RANDOM_KEY.replace('3', '4')}` }),
    );
    expect(problems).toMatch(/SEALING_KEYS: .*appears twice/);
    expect(problems).not.toContain(RANDOM_KEY);
  });

  it('accepts development keys in sandbox mode and refuses them in production mode, in a ring too', () => {
    expect(() => loadConfig(ringSchema, env)).not.toThrow();
    const problems = problemsOf(() =>
      loadConfig(ringSchema, { ...env, PLATFORM_MODE: 'production', CODE_KEY: 'c0de'.repeat(16) }),
    );
    expect(problems).toMatch(/SEALING_KEYS: is a published development key/);
    expect(problems).toMatch(/CODE_KEY: is a published development key/);
    expect(() =>
      loadConfig(ringSchema, { ...env, PLATFORM_MODE: 'production', SEALING_KEYS: RANDOM_KEY }),
    ).not.toThrow();
  });

  it('calls a key of few distinct bytes a development key', () => {
    expect(developmentKeyProblem('01'.repeat(32))).toMatch(/distinct bytes/);
    expect(developmentKeyProblem(RANDOM_KEY)).toBeNull();
  });
});

describe('sandboxScaledMs', () => {
  it('scales in sandbox mode, rounded to whole milliseconds', () => {
    expect(sandboxScaledMs({ PLATFORM_MODE: 'sandbox', SANDBOX_TIME_SCALE: 0.05 }, 200_001)).toBe(10_000);
    expect(sandboxScaledMs({ PLATFORM_MODE: 'sandbox', SANDBOX_TIME_SCALE: 2 }, 1_500)).toBe(3_000);
  });

  it('runs production on the configured value, whatever the scale', () => {
    expect(sandboxScaledMs({ PLATFORM_MODE: 'production', SANDBOX_TIME_SCALE: 0.001 }, 200_000, 1_000)).toBe(200_000);
  });

  it('never scales below the floor', () => {
    expect(sandboxScaledMs({ PLATFORM_MODE: 'sandbox', SANDBOX_TIME_SCALE: 0.001 }, 100)).toBe(1);
    expect(sandboxScaledMs({ PLATFORM_MODE: 'sandbox', SANDBOX_TIME_SCALE: 0.001 }, 60_000, 1_000)).toBe(1_000);
  });
});
