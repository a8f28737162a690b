/**
 * Configuration, read once at start; the process refuses to start on any
 * invalid value (exit 78). Every variable and its default is in the README.
 */
import {
  commonServiceEnv,
  loadConfigOrExit,
  metricsEnv,
  positiveInt,
  refuseDevelopmentKeysInProduction,
  retentionEnv,
  sealingKeyRing,
  urlWithProtocol,
  z,
} from '@platform/config';

/**
 * A lease must outlast one attempt (10 s) plus recording it. 15 s is the floor
 * (tests use it to see a killed replica's work reclaimed quickly); production
 * keeps the 60 s default.
 */
export const DELIVERY_LEASE_MS_MIN = 15_000;

/** The feed keeps every event at least this long: the partner contract's promise. */
export const EVENT_FEED_RETENTION_DAYS_MIN = 30;
export const PARTNER_RETRIES_PER_MINUTE_DEFAULT = 10;
/** Days a delivery outlives the feed's window, so a cursor just past it answers EVENT_CURSOR_EXPIRED, not UNKNOWN. */
export const DELIVERY_RETENTION_DAYS_BEYOND_FEED_MIN = 7;
export const DELIVERY_RETENTION_DAYS_BEYOND_FEED_DEFAULT = 30;

export const configSchema = z
  .object({
    ...commonServiceEnv,
    AMQP_URL: urlWithProtocol('amqp', 'amqps'),
    /**
     * The key ring sealing partners' webhook signing secrets at rest (AES-256-GCM):
     * `<id>:<64 hex>[,<id>:<64 hex>…]`, current key first; a bare 64-hex key is `k0`.
     */
    WEBHOOK_SECRET_ENCRYPTION_KEY: sealingKeyRing(),
    ...metricsEnv(9107),
    /** Bus messages taken from the queue ahead of their handling, per replica. */
    CONSUMER_PREFETCH: positiveInt().max(1_000).default(256),
    /** Bus events turned into deliveries by one statement, at most. */
    CONSUMER_BATCH_SIZE: positiveInt().max(1_000).default(128),
    /** How often the scheduler looks for due deliveries when nothing kicked it. */
    SCHEDULER_POLL_MS: positiveInt().min(10).max(60_000).default(250),
    /** Due deliveries claimed per query. */
    SCHEDULER_BATCH_SIZE: positiveInt().max(500).default(32),
    /** How long a claimed delivery stays with its replica before another may take it. */
    DELIVERY_LEASE_MS: positiveInt().min(DELIVERY_LEASE_MS_MIN).max(3_600_000).default(60_000),
    /** Attempts in flight per endpoint, across replicas. */
    ENDPOINT_IN_FLIGHT_MAX: positiveInt().max(100).default(4),
    /** Attempts in flight per replica. */
    ATTEMPTS_IN_FLIGHT_MAX: positiveInt().max(1_000).default(64),
    /** How often each replica reconciles: expired leases released, overdue deliveries counted. */
    RECONCILE_INTERVAL_MS: positiveInt().min(100).max(600_000).default(1_000),
    /** A pending delivery due for longer than this is overdue (gauge and alert). */
    DELIVERY_OVERDUE_MS: positiveInt().min(1_000).max(86_400_000).default(60_000),
    /**
     * How long the events feed serves an event (days since it was created). The
     * partner contract promises at least 30; older cursors answer EVENT_CURSOR_EXPIRED.
     */
    EVENT_FEED_RETENTION_DAYS: positiveInt()
      .min(EVENT_FEED_RETENTION_DAYS_MIN)
      .max(400)
      .default(EVENT_FEED_RETENTION_DAYS_MIN),
    /** How often each replica gives new events their feed positions when nothing kicked it. */
    FEED_POSITION_POLL_MS: positiveInt().min(10).max(60_000).default(500),
    /** Events given positions per step (one short transaction under the feed lock). */
    FEED_POSITION_BATCH_SIZE: positiveInt().max(5_000).default(500),
    /** Retries a partner may ask for (POST /v1/webhook-deliveries/{id}/retry) per minute. */
    PARTNER_RETRIES_PER_MINUTE: positiveInt().max(1_000).default(PARTNER_RETRIES_PER_MINUTE_DEFAULT),
    /**
     * Days a finished delivery (and its attempts) is kept after it was created: at least
     * DELIVERY_RETENTION_DAYS_BEYOND_FEED_MIN beyond EVENT_FEED_RETENTION_DAYS; unset,
     * DELIVERY_RETENTION_DAYS_BEYOND_FEED_DEFAULT beyond it (deliveryRetentionDays).
     */
    DELIVERY_RETENTION_DAYS: positiveInt().max(800).optional(),
    /**
     * Weekly partitions of deliveries and attempts kept ready beyond the current week: events
     * still find their partition if partition maintenance fails for this long (docs/retention.md).
     */
    DELIVERY_PARTITIONS_AHEAD_WEEKS: positiveInt().min(2).max(26).default(4),
    ...retentionEnv(),
  })
  .superRefine((config, context) => {
    refuseDevelopmentKeysInProduction<typeof config>('WEBHOOK_SECRET_ENCRYPTION_KEY')(config, context);
    const deliveryDays = config.DELIVERY_RETENTION_DAYS;
    if (
      deliveryDays !== undefined &&
      deliveryDays < config.EVENT_FEED_RETENTION_DAYS + DELIVERY_RETENTION_DAYS_BEYOND_FEED_MIN
    ) {
      context.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['DELIVERY_RETENTION_DAYS'],
        message: `must be at least EVENT_FEED_RETENTION_DAYS + ${DELIVERY_RETENTION_DAYS_BEYOND_FEED_MIN}`,
      });
    }
  });

export type Config = z.infer<typeof configSchema>;

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadConfigOrExit(configSchema, env);
}

/** Days a finished delivery is kept: DELIVERY_RETENTION_DAYS, or the feed's window and a month when unset. */
export function deliveryRetentionDays(config: Config): number {
  return (
    config.DELIVERY_RETENTION_DAYS ?? config.EVENT_FEED_RETENTION_DAYS + DELIVERY_RETENTION_DAYS_BEYOND_FEED_DEFAULT
  );
}
