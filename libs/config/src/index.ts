/**
 * Configuration is read once, at start, from the environment, and validated
 * against the service's schema. Every problem is reported at once and the
 * process stops before it opens a port: a service never runs half-configured.
 */
import { z } from 'zod';

export { z };

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/** Parses `env` against `schema`; throws ConfigError naming every bad variable. */
export function loadConfig<S extends z.ZodTypeAny>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const result = schema.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
    throw new ConfigError(problems);
  }
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
export const hexKey32 = () => z.string().regex(/^[0-9a-fA-F]{64}$/, 'expected 64 hex characters (32 bytes)');
export const booleanFlag = () =>
  z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');
export const urlWithProtocol = (...protocols: string[]) =>
  z.string().refine((value) => {
    try {
      return protocols.includes(new URL(value).protocol.replace(/:$/, ''));
    } catch {
      return false;
    }
  }, `expected a ${protocols.join(' or ')} URL`);

/** The variables every service reads. Spread into a service's own schema. */
export const commonServiceEnv = {
  PLATFORM_MODE: z.enum(['sandbox', 'production']).default('sandbox'),
  LOG_LEVEL: z.enum(['error', 'warn', 'info', 'debug']).default('info'),
  /** Multiplies sandbox delays and lifetimes (contract decisions section 8). */
  SANDBOX_TIME_SCALE: z.coerce.number().positive().max(100).default(1),
  DATABASE_URL: urlWithProtocol('postgres', 'postgresql'),
  GRPC_PORT: port(),
  /** Upper bound on graceful shutdown before the process exits anyway. */
  SHUTDOWN_GRACE_MS: positiveInt().default(10_000),
};

export function grpcAddress(name: string) {
  return { [name]: hostPort() };
}

/** What a service's migrate entry point needs: only its database. */
export const migrationEnvSchema = z.object({
  LOG_LEVEL: commonServiceEnv.LOG_LEVEL,
  DATABASE_URL: commonServiceEnv.DATABASE_URL,
});

export function readMigrationConfig(env: NodeJS.ProcessEnv = process.env): z.infer<typeof migrationEnvSchema> {
  return loadConfigOrExit(migrationEnvSchema, env);
}
