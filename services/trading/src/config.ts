/**
 * Trading's configuration, read once at start; any problem stops the process
 * before it opens a port. Every variable and its default is listed in README.md.
 */
import {
  commonServiceEnv,
  grpcTarget,
  holdReconcileEnv,
  loadConfigOrExit,
  metricsEnv,
  outboxRetentionEnv,
  positiveInt,
  retentionEnv,
  retentionWindowMs,
  urlWithProtocol,
  z,
} from '@platform/config';
import { parseDecimal, RATE_SCALE } from '@platform/money';
import type { RateFeedConfig } from './adapters/rate-feed/create-rate-feed';
import { SPREAD_BPS_MAX } from './adapters/rate-feed/random-walk';
import { quoteLifetimeMs } from './domain/quote-lifetime';

const RATE_TICK_MS_MAX = 60_000;
const RATE_FEED_TIMEOUT_MS_MAX = 30_000;
const RATE_FEED_REUSE_MS_MAX = 5_000;
const QUOTE_TTL_MS_MAX = 10 * 60_000;
const SETTLEMENT_ESTIMATE_SECONDS_MAX = 24 * 60 * 60;
const ORDER_DELAY_MS_MAX = 24 * 60 * 60_000;
const DAY_MS = 24 * 60 * 60_000;

const positiveRate = () =>
  z
    .string()
    .refine(
      (value) => parseDecimal(value, RATE_SCALE)?.gt(0) === true,
      `expected a positive decimal with at most ${RATE_SCALE} decimals`,
    );

export const configSchema = z
  .object({
    ...commonServiceEnv,
    ...metricsEnv(9101),
    /** sandbox: simulated random walk (default); http: a real feed at RATE_FEED_URL. Production requires http. */
    RATE_FEED: z.enum(['sandbox', 'http']).default('sandbox'),
    RATE_FEED_URL: urlWithProtocol('http', 'https').optional(),
    RATE_FEED_TIMEOUT_MS: positiveInt().max(RATE_FEED_TIMEOUT_MS_MAX).default(2_000),
    /** Wall-clock: a fetched rate answers quotes again for this long without a request (0: a request per quote). */
    RATE_FEED_REUSE_MS: z.coerce.number().int().min(0).max(RATE_FEED_REUSE_MS_MAX).default(250),
    RATE_SANDBOX_MID_KES: positiveRate().default('129.50'),
    RATE_SANDBOX_SPREAD_BPS: z.coerce.number().int().min(0).max(SPREAD_BPS_MAX).default(50),
    RATE_TICK_MS: positiveInt().max(RATE_TICK_MS_MAX).default(1_000),
    /** Wall-clock; never scaled by SANDBOX_TIME_SCALE. */
    RATE_STALENESS_LIMIT_MS: positiveInt().default(60_000),
    /** Scaled by SANDBOX_TIME_SCALE in sandbox mode. */
    QUOTE_TTL_MS: positiveInt().max(QUOTE_TTL_MS_MAX).default(30_000),
    SETTLEMENT_ESTIMATE_SECONDS: positiveInt().max(SETTLEMENT_ESTIMATE_SECONDS_MAX).default(60),
    AMQP_URL: urlWithProtocol('amqp', 'amqps'),
    OUTBOX_POLL_INTERVAL_MS: positiveInt().default(200),
    LEDGER_GRPC_ADDR: grpcTarget(),
    /** The release-time wallet check of pay-in buys (GetWalletStatus). */
    WALLET_REGISTRY_GRPC_ADDR: grpcTarget(),
    /** Scaled: how long a pay-in buy waits for its payment (payBefore). */
    ORDER_PAY_WINDOW_MS: positiveInt()
      .max(ORDER_DELAY_MS_MAX)
      .default(30 * 60_000),
    /** Wall-clock: how often an awaiting pay-in buy's payment is looked for. */
    ORDER_PAYMENT_POLL_MS: positiveInt()
      .max(10 * 60_000)
      .default(1_000),
    /** Wall-clock: how often a sell order awaiting USDT, with a hash attached, asks the ledger whether its deposit came. */
    ORDER_DEPOSIT_POLL_MS: positiveInt()
      .max(10 * 60_000)
      .default(1_000),
    /** Wall-clock: how soon payouts may claim a sell order again after reporting its payout accepted (still with the bank). */
    ORDER_PAYOUT_POLL_MS: positiveInt()
      .max(10 * 60_000)
      .default(250),
    /** Scaled: an accepted debit-first buy settles this long after its debit. */
    ORDER_SETTLEMENT_DELAY_MS: positiveInt().max(ORDER_DELAY_MS_MAX).default(5_000),
    /** Scaled: an ambiguous (or unanswered) KES debit is first reconciled from the bank's record after this long. */
    ORDER_DEBIT_RECONCILE_DELAY_MS: positiveInt().max(ORDER_DELAY_MS_MAX).default(10_000),
    /** Scaled: how long a sell order waits for its USDT (sendBefore). */
    ORDER_SEND_WINDOW_MS: positiveInt()
      .max(ORDER_DELAY_MS_MAX)
      .default(30 * 60_000),
    /** Wall-clock: how often each replica looks for due order steps. */
    ORDER_SCHEDULER_INTERVAL_MS: positiveInt().max(60_000).default(500),
    ORDER_SCHEDULER_BATCH_SIZE: positiveInt().max(500).default(50),
    /** Wall-clock: a claimed step is retaken by any replica after this long. */
    ORDER_STEP_LEASE_MS: positiveInt()
      .max(10 * 60_000)
      .default(30_000),
    ...holdReconcileEnv(),
    ...retentionEnv(),
    ...outboxRetentionEnv(),
    /** Wall-clock: a quote never consumed is deleted this long after it expired (consumed quotes are kept with their orders). */
    QUOTE_RETENTION_MS: retentionWindowMs(DAY_MS),
  })
  .superRefine((config, context) => {
    if (config.PLATFORM_MODE === 'production' && config.RATE_FEED !== 'http') {
      context.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['RATE_FEED'],
        message: 'must be "http" in production mode',
      });
    }
    if (config.RATE_FEED === 'http' && !config.RATE_FEED_URL) {
      context.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['RATE_FEED_URL'],
        message: 'required when RATE_FEED=http',
      });
    }
    if (config.RATE_FEED === 'http' && config.RATE_FEED_REUSE_MS >= config.RATE_STALENESS_LIMIT_MS) {
      // Otherwise a reused rate could be refused as stale while it is still being reused.
      context.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['RATE_FEED_REUSE_MS'],
        message: 'must be below RATE_STALENESS_LIMIT_MS',
      });
    }
    if (config.RATE_FEED === 'sandbox' && config.RATE_TICK_MS >= config.RATE_STALENESS_LIMIT_MS) {
      // Otherwise the sandbox rate would go stale between two ticks.
      context.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['RATE_TICK_MS'],
        message: 'must be below RATE_STALENESS_LIMIT_MS',
      });
    }
  });

export type Config = z.infer<typeof configSchema>;

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadConfigOrExit(configSchema, env);
}

export function rateFeedConfig(config: Config): RateFeedConfig {
  if (config.RATE_FEED === 'http') {
    if (!config.RATE_FEED_URL) throw new Error('RATE_FEED_URL missing after validation');
    return {
      kind: 'http',
      url: config.RATE_FEED_URL,
      timeoutMs: config.RATE_FEED_TIMEOUT_MS,
      reuseMs: config.RATE_FEED_REUSE_MS,
    };
  }
  return {
    kind: 'sandbox',
    midKes: config.RATE_SANDBOX_MID_KES,
    spreadBps: config.RATE_SANDBOX_SPREAD_BPS,
    tickMs: config.RATE_TICK_MS,
  };
}

export function configuredQuoteLifetimeMs(config: Config): number {
  return quoteLifetimeMs(config.QUOTE_TTL_MS, config.PLATFORM_MODE, config.SANDBOX_TIME_SCALE);
}

/** An order delay or window, multiplied by SANDBOX_TIME_SCALE in sandbox mode only (never below 1 ms). */
export function scaledMs(config: Config, ms: number): number {
  return quoteLifetimeMs(ms, config.PLATFORM_MODE, config.SANDBOX_TIME_SCALE);
}
