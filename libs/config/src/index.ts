/**
 * Configuration is read once, at start, from the environment, and validated
 * against the service's schema. Every problem is reported at once and the
 * process stops before it opens a port: a service never runs half-configured.
 */
import { isAbsolute } from 'node:path';
import { SealingKeyRing } from '@platform/crypto';
import { z } from 'zod';

export { z };

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/** Every problem `schema` finds in `env`, as `VARIABLE: why` lines; empty when the environment is valid. */
export function configProblems(schema: z.ZodTypeAny, env: NodeJS.ProcessEnv = process.env): string[] {
  const result = schema.safeParse(env);
  return result.success
    ? []
    : result.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
}

/** Parses `env` against `schema`; throws ConfigError naming every bad variable. */
export function loadConfig<S extends z.ZodTypeAny>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const result = schema.safeParse(env);
  if (!result.success) throw new ConfigError(configProblems(schema, env));
  return result.data;
}

/** Builds a config or prints why it cannot and exits 78 (EX_CONFIG). For entry points. */
export function loadConfigOrExit<S extends z.ZodTypeAny>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  try {
    return loadConfig(schema, env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${JSON.stringify({ level: 'error', message: error.message, problems: error.problems })}\n`);
      process.exit(78);
    }
    throw error;
  }
}

export const port = () => z.coerce.number().int().min(1).max(65535);
export const positiveInt = () => z.coerce.number().int().positive();
export const nonNegativeInt = () => z.coerce.number().int().nonnegative();
export const hostPort = () => z.string().regex(/^[A-Za-z0-9.-]+:\d{1,5}$/, 'expected host:port');
/**
 * Every replica of a gRPC upstream (@platform/grpc channel.ts): `host:port`, a
 * comma-separated list of IPv4 `host:port` (one per replica, the local stack), or
 * `dns:///<headless Service>:port` (Kubernetes: every ready pod).
 */
export const grpcTarget = () =>
  z
    .string()
    .regex(
      /^(?:[A-Za-z0-9.-]+:\d{1,5}|(?:\d{1,3}(?:\.\d{1,3}){3}:\d{1,5})(?:,\d{1,3}(?:\.\d{1,3}){3}:\d{1,5})+|dns:\/\/\/[A-Za-z0-9.-]+:\d{1,5})$/,
      'expected host:port, a comma-separated list of IPv4 host:port, or dns:///host:port',
    );
export const hexKey32 = () => z.string().regex(/^[0-9a-fA-F]{64}$/, 'expected 64 hex characters (32 bytes)');
export const booleanFlag = () =>
  z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');
export const urlWithProtocol = (...protocols: string[]) =>
  z.string().refine(
    (value) => {
      try {
        return protocols.includes(new URL(value).protocol.replace(/:$/, ''));
      } catch {
        return false;
      }
    },
    `expected a ${protocols.join(' or ')} URL`,
  );

/** A host name or an IP address to listen on; 0.0.0.0 (all interfaces) only when configured so. */
export const listenHost = () =>
  z
    .string()
    .regex(/^[A-Za-z0-9.:-]{1,253}$/, 'expected a host name or an IP address')
    .default('127.0.0.1');
export const absolutePath = () =>
  z
    .string()
    .min(1)
    .refine((value) => isAbsolute(value), 'expected an absolute path');

/**
 * A sealing key ring: `<id>:<64 hex>[,<id>:<64 hex>…]`, the current key first
 * (a bare 64-hex key is the ring `k0:<key>`). Parsed into a SealingKeyRing.
 */
export const sealingKeyRing = () =>
  z.string().transform((text, context) => {
    try {
      return SealingKeyRing.parse(text);
    } catch (error) {
      context.addIssue({
        code: 'custom',
        message: `expected <id>:<64 hex>[,<id>:<64 hex>…]: ${(error as Error).message}`,
      });
      return z.NEVER;
    }
  });

/**
 * Keys that have been published (the compose file's former development
 * defaults, the documentation's examples): a production process refuses them,
 * and any key of fewer than 8 distinct bytes, as certainly not random.
 */
export const KNOWN_DEVELOPMENT_KEYS: readonly string[] = [
  'deadbeef'.repeat(8),
  'c0de'.repeat(16),
  `${'c0de'.repeat(15)}7004`,
  'feedface'.repeat(8),
  'ab'.repeat(32),
  'cd'.repeat(32),
];
const DISTINCT_KEY_BYTES_MIN = 8;

/** Why `keyHex` cannot be a production key, or null when it may be. */
export function developmentKeyProblem(keyHex: string): string | null {
  const lower = keyHex.toLowerCase();
  if (KNOWN_DEVELOPMENT_KEYS.includes(lower)) return 'is a published development key';
  const distinct = new Set(lower.match(/../g) ?? []).size;
  if (distinct < DISTINCT_KEY_BYTES_MIN)
    return `has only ${distinct} distinct bytes: generate it with openssl rand -hex 32`;
  return null;
}

type KeyValue = string | SealingKeyRing;

/**
 * A superRefine step: in production mode, every named key (a 64-hex key or a
 * key ring) must be none of the known development keys.
 */
export function refuseDevelopmentKeysInProduction<T extends { PLATFORM_MODE: 'sandbox' | 'production' }>(
  ...names: (keyof T & string)[]
) {
  return (config: T, context: z.RefinementCtx): void => {
    if (config.PLATFORM_MODE !== 'production') return;
    for (const name of names) {
      const value = config[name] as unknown as KeyValue | undefined;
      if (value === undefined) continue;
      const keys = typeof value === 'string' ? [value] : value.keysHex;
      const problem = keys.map(developmentKeyProblem).find((found) => found !== null);
      if (problem)
        context.addIssue({ code: 'custom', path: [name], message: `${problem}; refused in production mode` });
    }
  };
}

/** The variables every service reads. Spread into a service's own schema. */
export const commonServiceEnv = {
  /** No default: a service must be told which world it is in, and refuses to start otherwise. */
  PLATFORM_MODE: z.enum(['sandbox', 'production'], {
    required_error: 'required (sandbox or production); there is no default',
  }),
  LOG_LEVEL: z.enum(['error', 'warn', 'info', 'debug']).default('info'),
  /** Multiplies sandbox delays and lifetimes (quotes, confirmations, settlement), so tests can run the sandbox's clock faster. */
  SANDBOX_TIME_SCALE: z.coerce.number().positive().max(100).default(1),
  DATABASE_URL: urlWithProtocol('postgres', 'postgresql'),
  GRPC_PORT: port(),
  /** The address the gRPC listener binds: this machine only unless set (Kubernetes sets 0.0.0.0). */
  GRPC_HOST: listenHost(),
  /** A plaintext port serving grpc.health.v1 only, for probes that hold no certificate (the kubelet's). Off when unset. */
  HEALTH_PORT: port().optional(),
  /** Mutual TLS: the CA bundle trusted for peers, this service's certificate (naming spiffe://platform/<service>) and its key. */
  TLS_CA_FILE: absolutePath(),
  TLS_CERT_FILE: absolutePath(),
  TLS_KEY_FILE: absolutePath(),
  /** How often the TLS files are checked for a rotation (taken without a restart). */
  TLS_RELOAD_INTERVAL_MS: positiveInt().min(100).max(600_000).default(10_000),
  /**
   * How old a peer's connection to the gRPC server may grow before the peer must open a new one
   * (and so present its current certificate, checked against the current CA): an expired or no
   * longer trusted identity is served at most this long. At least a minute (each new connection is
   * a handshake), at most an hour.
   */
  GRPC_MAX_CONNECTION_AGE_MS: positiveInt().min(60_000).max(3_600_000).default(1_800_000),
  /** How long calls in flight on a connection past that age may still finish before it is closed. */
  GRPC_MAX_CONNECTION_AGE_GRACE_MS: positiveInt().min(5_000).max(300_000).default(30_000),
  /** Upper bound on graceful shutdown before the process exits anyway. */
  SHUTDOWN_GRACE_MS: positiveInt().default(10_000),
  /**
   * OTLP/HTTP base URL traces are exported to (e.g. http://otel-collector:4318; spans go to
   * `<url>/v1/traces`). Unset: trace ids still propagate and appear in the logs, but no span is
   * recorded or exported.
   */
  OTEL_EXPORTER_OTLP_ENDPOINT: urlWithProtocol('http', 'https').optional(),
  /** Share of new traces recorded and exported when exporting, 0..1; a caller's sampled flag is followed whatever it is. */
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).default(1),
};

/**
 * A sandbox delay or lifetime as it runs: multiplied by SANDBOX_TIME_SCALE in sandbox mode only
 * (production runs on the configured value as it is), in whole milliseconds, never below `scaledMsMin`.
 */
export function sandboxScaledMs(
  config: { PLATFORM_MODE: 'sandbox' | 'production'; SANDBOX_TIME_SCALE: number },
  ms: number,
  scaledMsMin = 1,
): number {
  if (config.PLATFORM_MODE !== 'sandbox') return ms;
  return Math.max(scaledMsMin, Math.round(ms * config.SANDBOX_TIME_SCALE));
}

/**
 * The Prometheus endpoint every service serves (GET /metrics). Spread into each
 * service's schema with its own default port: 9100 plus the service's place in
 * the platform, as its gRPC port is 7000 plus it (gateway 9100 … webhook-delivery
 * 9107). It binds HTTP_HOST, the address of the services' HTTP listeners.
 */
export function metricsEnv(defaultPort: number) {
  return {
    /** Prometheus metrics (GET /metrics), plain HTTP. */
    METRICS_PORT: port().default(defaultPort),
    /** The address the HTTP listeners (metrics; the gateway's partner API) bind: this machine only unless set (Kubernetes sets 0.0.0.0). */
    HTTP_HOST: listenHost(),
  };
}

const HOUR_MS = 60 * 60_000;
const DAY_MS = 24 * HOUR_MS;

/** Bounds of the retention settings every service with a retention worker reads. */
export const RETENTION_INTERVAL_MS_MAX = DAY_MS;
export const RETENTION_BATCH_SIZE_MAX = 5_000;
/** A retention window of less than an hour would prune rows an operator may still be looking at. */
export const RETENTION_WINDOW_MS_MIN = HOUR_MS;
/** Beyond about thirteen months a window keeps rows no purpose needs; a financial record is never windowed. */
export const RETENTION_WINDOW_MS_MAX = 400 * DAY_MS;

/** A retention window in ms: at least an hour, at most RETENTION_WINDOW_MS_MAX, with its default. */
export function retentionWindowMs(defaultMs: number) {
  return positiveInt().min(RETENTION_WINDOW_MS_MIN).max(RETENTION_WINDOW_MS_MAX).default(defaultMs);
}

/**
 * How the retention worker runs (docs/retention.md): how often each replica
 * looks for rows past their window, and how many rows one delete removes at
 * most (one short transaction each).
 */
export function retentionEnv() {
  return {
    RETENTION_INTERVAL_MS: positiveInt().min(1_000).max(RETENTION_INTERVAL_MS_MAX).default(60_000),
    RETENTION_BATCH_SIZE: positiveInt().max(RETENTION_BATCH_SIZE_MAX).default(500),
  };
}

/**
 * How each replica looks for its service's pending ledger holds that nothing will resolve (orphans of a create that
 * died between placing a hold and recording it). Wall-clock.
 */
export function holdReconcileEnv() {
  return {
    /** How often each replica looks through the service's pending ledger holds for orphans. */
    HOLD_RECONCILE_INTERVAL_MS: positiveInt()
      .max(60 * 60_000)
      .default(60_000),
    /** A hold placed more recently than this is not looked at (nearly every hold resolves on its own well before). */
    HOLD_RECONCILE_MIN_AGE_MS: positiveInt()
      .max(7 * 24 * 60 * 60_000)
      .default(10 * 60_000),
  };
}

/** How long a published outbox row is kept: nothing reads it once published; it stays for inspection. */
export function outboxRetentionEnv() {
  return { OUTBOX_RETENTION_MS: retentionWindowMs(7 * DAY_MS) };
}

export function grpcAddress(name: string) {
  return { [name]: grpcTarget() };
}

/** What a service's migrate entry point needs: only its database. */
export const migrationEnvSchema = z.object({
  LOG_LEVEL: commonServiceEnv.LOG_LEVEL,
  DATABASE_URL: commonServiceEnv.DATABASE_URL,
});

export function readMigrationConfig(env: NodeJS.ProcessEnv = process.env): z.infer<typeof migrationEnvSchema> {
  return loadConfigOrExit(migrationEnvSchema, env);
}
