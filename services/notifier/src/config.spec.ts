// Proves the notifier configuration fails fast on anything missing or malformed
// (so the service never opens a port half-configured) and accepts a full
// environment with the documented defaults filled in.
import { configProblems, loadConfig } from '@platform/config';
import { configSchema } from './config';

const fullEnv = {
  DATABASE_URL: 'postgres://platform:platform@127.0.0.1:25432/svc_notifier',
  PLATFORM_MODE: 'sandbox',
  TLS_CA_FILE: '/tls/ca.pem',
  TLS_CERT_FILE: '/tls/notifier.pem',
  TLS_KEY_FILE: '/tls/notifier-key.pem',
  GRPC_PORT: '7006',
};

const problemsOf = (env: NodeJS.ProcessEnv): string[] => configProblems(configSchema, env);

describe('notifier configSchema', () => {
  it('accepts a full environment and fills in the defaults', () => {
    const config = loadConfig(configSchema, {
      ...fullEnv,
      PLATFORM_MODE: 'production',
      LOG_LEVEL: 'debug',
      SMTP_URL: 'smtps://u:p@mail.example.net:465',
      SMTP_FROM: 'no-reply@example.net',
    });
    expect(config).toMatchObject({
      DATABASE_URL: fullEnv.DATABASE_URL,
      GRPC_PORT: 7006,
      PLATFORM_MODE: 'production',
      LOG_LEVEL: 'debug',
      SANDBOX_TIME_SCALE: 1,
      SHUTDOWN_GRACE_MS: 10_000,
    });
  });

  it.each(['DATABASE_URL', 'GRPC_PORT'])('refuses an environment without %s', (name) => {
    const env: NodeJS.ProcessEnv = { ...fullEnv };
    delete env[name];
    expect(problemsOf(env).some((problem) => problem.startsWith(`${name}:`))).toBe(true);
  });

  it('names every bad variable at once', () => {
    const problems = problemsOf({
      DATABASE_URL: 'http://db/x',
      GRPC_PORT: 'seven',
      PLATFORM_MODE: 'live',
      TLS_CA_FILE: 'relative.pem',
    });
    expect(problems.map((problem) => problem.split(':')[0]).sort()).toEqual([
      'DATABASE_URL',
      'GRPC_PORT',
      'PLATFORM_MODE',
      'TLS_CA_FILE',
      'TLS_CERT_FILE',
      'TLS_KEY_FILE',
    ]);
  });

  it('requires SMTP settings in production mode only', () => {
    expect(
      problemsOf({ ...fullEnv, PLATFORM_MODE: 'production' })
        .map((problem) => problem.split(':')[0])
        .sort(),
    ).toEqual(['SMTP_FROM', 'SMTP_URL']);
    expect(problemsOf({ ...fullEnv })).toEqual([]);
    expect(
      problemsOf({ ...fullEnv, SMTP_URL: 'http://mail.example.net' }).map((problem) => problem.split(':')[0]),
    ).toEqual(['SMTP_URL']);
  });
});
