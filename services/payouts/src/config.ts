import { commonServiceEnv, hostPort, loadConfigOrExit, positiveInt, urlWithProtocol, z } from '@platform/config';

export const configSchema = z.object({
  ...commonServiceEnv,
  /** Broker the outbox relay publishes this service's events to. */
  AMQP_URL: urlWithProtocol('amqp', 'amqps'),
  /** Where payout destinations are resolved. */
  LEDGER_GRPC_ADDR: hostPort(),
  /** Scaled by SANDBOX_TIME_SCALE: the sandbox bank settles an accepted payout this long after submission. */
  SANDBOX_BANK_SETTLE_DELAY_MS: positiveInt().max(24 * 60 * 60_000).default(5_000),
  /** Wall-clock: how often each replica looks for due payout steps. */
  PAYOUT_RUNNER_INTERVAL_MS: positiveInt().max(60_000).default(500),
  PAYOUT_RUNNER_BATCH_SIZE: positiveInt().max(500).default(50),
  /** Wall-clock: a claimed payout step is retaken by any replica after this long. */
  PAYOUT_STEP_LEASE_MS: positiveInt().max(10 * 60_000).default(30_000),
  /** Wall-clock: how soon a submitted payout's status is read again. */
  PAYOUT_STATUS_POLL_MS: positiveInt().max(10 * 60_000).default(250),
  /** Scaled by SANDBOX_TIME_SCALE: an unanswered mobile-money prompt expires this long after it was sent. */
  MOBILE_MONEY_PUSH_LIFETIME_MS: positiveInt().max(60 * 60_000).default(120_000),
  /** Wall-clock: how often each replica books approved prompts (and retries ones the ledger did not take). */
  MOBILE_MONEY_CREDIT_INTERVAL_MS: positiveInt().max(60_000).default(1_000),
});

export type Config = z.infer<typeof configSchema>;

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadConfigOrExit(configSchema, env);
}

/** The sandbox bank's settlement delay, scaled in sandbox mode (never below 1 ms). */
export function sandboxSettleDelayMs(config: Config): number {
  return Math.max(1, Math.round(config.SANDBOX_BANK_SETTLE_DELAY_MS * config.SANDBOX_TIME_SCALE));
}

/** The mobile-money prompt's lifetime, scaled in sandbox mode (never below 1 ms). */
export function pushLifetimeMs(config: Config): number {
  const scale = config.PLATFORM_MODE === 'sandbox' ? config.SANDBOX_TIME_SCALE : 1;
  return Math.max(1, Math.round(config.MOBILE_MONEY_PUSH_LIFETIME_MS * scale));
}
