import {
  commonServiceEnv,
  hexKey32,
  grpcTarget,
  loadConfigOrExit,
  metricsEnv,
  positiveInt,
  refuseDevelopmentKeysInProduction,
  sandboxScaledMs,
  z,
} from '@platform/config';

const CODE_TTL_MS_MAX = 24 * 60 * 60 * 1_000;
const NOTIFIER_DEADLINE_MS_MAX = 30_000;
const ADMIN_WAITING_PERIOD_MS_MIN = 60_000;
const ADMIN_WAITING_PERIOD_MS_MAX = 7 * 24 * 60 * 60 * 1_000;
/** A scaled sandbox waiting period never falls below this, so a test can still observe it. */
const SCALED_WAITING_PERIOD_MS_MIN = 1_000;

export const configSchema = z
  .object({
    ...commonServiceEnv,
    ...metricsEnv(9103),
    /** HMAC-SHA256 key (64 hex) under which approval codes are stored; codes are never stored in clear. */
    CODE_HASH_KEY: hexKey32(),
    /** Lifetime of a wallet approval code (multiplied by SANDBOX_TIME_SCALE in sandbox mode). */
    WALLET_CODE_TTL_MS: positiveInt()
      .max(CODE_TTL_MS_MAX)
      .default(10 * 60 * 1_000),
    /** The notifier, which sends the codes. */
    NOTIFIER_GRPC_ADDR: grpcTarget(),
    /** Deadline of one SendMessage call; a registration waits at most this long for it. */
    NOTIFIER_DEADLINE_MS: positiveInt().max(NOTIFIER_DEADLINE_MS_MAX).default(5_000),
    /**
     * How long a newly registered administrator waits before it may receive codes, unless it is the
     * partner's first (multiplied by SANDBOX_TIME_SCALE in sandbox mode). The other administrators are
     * told of it meanwhile and can remove it.
     */
    ADMIN_WAITING_PERIOD_MS: positiveInt()
      .min(ADMIN_WAITING_PERIOD_MS_MIN)
      .max(ADMIN_WAITING_PERIOD_MS_MAX)
      .default(24 * 60 * 60 * 1_000),
  })
  .superRefine(refuseDevelopmentKeysInProduction('CODE_HASH_KEY'));

export type Config = z.infer<typeof configSchema>;

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadConfigOrExit(configSchema, env);
}

/** The code lifetime in force: scaled in sandbox mode only, never in production. */
export function effectiveCodeTtlMs(
  config: Pick<Config, 'PLATFORM_MODE' | 'SANDBOX_TIME_SCALE' | 'WALLET_CODE_TTL_MS'>,
): number {
  return sandboxScaledMs(config, config.WALLET_CODE_TTL_MS);
}

/** The administrators' waiting period in force: scaled in sandbox mode only, never in production. */
export function effectiveAdminWaitingPeriodMs(
  config: Pick<Config, 'PLATFORM_MODE' | 'SANDBOX_TIME_SCALE' | 'ADMIN_WAITING_PERIOD_MS'>,
): number {
  return sandboxScaledMs(config, config.ADMIN_WAITING_PERIOD_MS, SCALED_WAITING_PERIOD_MS_MIN);
}
