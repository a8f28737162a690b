import {
  commonServiceEnv,
  grpcTarget,
  loadConfigOrExit,
  metricsEnv,
  nonNegativeInt,
  outboxRetentionEnv,
  positiveInt,
  retentionEnv,
  sandboxScaledMs,
  urlWithProtocol,
  z,
} from '@platform/config';

const LIFETIME_MS_MAX = 365 * 24 * 60 * 60 * 1_000;
const FEE_BPS_MAX = 10_000;
/** Ten million dollars in cents. */
const FEE_MINOR_MAX = 1_000_000_000;
const LEDGER_DEADLINE_MS_MAX = 30_000;
const STEP_INTERVAL_MS_MAX = 60_000;
const STEP_BATCH_SIZE_MAX = 500;

export const configSchema = z
  .object({
    ...commonServiceEnv,
    ...metricsEnv(9105),
    /** Broker the outbox relay publishes this service's events to. */
    AMQP_URL: urlWithProtocol('amqp', 'amqps'),
    /** The ledger, which holds the partner's USD balance. */
    LEDGER_GRPC_ADDR: grpcTarget(),
    /** Deadline of one ledger call; a credit that does not answer in time is retried later. */
    LEDGER_DEADLINE_MS: positiveInt().max(LEDGER_DEADLINE_MS_MAX).default(5_000),
    /** How long a collection stays open for its deposit (multiplied by SANDBOX_TIME_SCALE in sandbox mode). */
    COLLECTION_LIFETIME_MS: positiveInt()
      .max(LIFETIME_MS_MAX)
      .default(7 * 24 * 60 * 60 * 1_000),
    /** Fee terms of a partner that operators have not configured. */
    COLLECTION_FEE_BPS_DEFAULT: nonNegativeInt().max(FEE_BPS_MAX).default(100),
    COLLECTION_FEE_FLAT_MINOR_DEFAULT: nonNegativeInt().max(FEE_MINOR_MAX).default(30),
    COLLECTION_FEE_CAP_MINOR_DEFAULT: nonNegativeInt().max(FEE_MINOR_MAX).default(2_500),
    /** How often each replica looks for collections to credit or expire. */
    STEP_INTERVAL_MS: positiveInt().max(STEP_INTERVAL_MS_MAX).default(1_000),
    /** At most this many collections per step and per kind of work. */
    STEP_BATCH_SIZE: positiveInt().max(STEP_BATCH_SIZE_MAX).default(20),
    ...retentionEnv(),
    ...outboxRetentionEnv(),
  })
  .refine((config) => config.COLLECTION_FEE_CAP_MINOR_DEFAULT >= config.COLLECTION_FEE_FLAT_MINOR_DEFAULT, {
    message: 'must be at least COLLECTION_FEE_FLAT_MINOR_DEFAULT',
    path: ['COLLECTION_FEE_CAP_MINOR_DEFAULT'],
  });

export type Config = z.infer<typeof configSchema>;

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadConfigOrExit(configSchema, env);
}

/** The lifetime in force: scaled in sandbox mode only, never in production. */
export function effectiveLifetimeMs(
  config: Pick<Config, 'PLATFORM_MODE' | 'SANDBOX_TIME_SCALE' | 'COLLECTION_LIFETIME_MS'>,
): number {
  return sandboxScaledMs(config, config.COLLECTION_LIFETIME_MS);
}
