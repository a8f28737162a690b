import {
  commonServiceEnv,
  hexKey32,
  holdReconcileEnv,
  grpcTarget,
  loadConfigOrExit,
  metricsEnv,
  outboxRetentionEnv,
  positiveInt,
  retentionEnv,
  refuseDevelopmentKeysInProduction,
  sandboxScaledMs,
  urlWithProtocol,
  z,
} from '@platform/config';
import { LEASE_MS_DEFAULT, LEASE_MS_MAX, LEASE_MS_MIN, leaseTimingProblem } from '@platform/persistence';
import {
  WRONG_CODE_WINDOW_MS_BOUNDS,
  WRONG_CODE_WINDOW_MS_DEFAULT,
  WRONG_CODES_MAX_BOUNDS,
  WRONG_CODES_MAX_DEFAULT,
  WrongCodeBudgetSettings,
} from './domain/wrong-code-budget';

export const configSchema = z
  .object({
    ...commonServiceEnv,
    ...metricsEnv(9104),
    /** Broker the outbox relay publishes this service's events to. */
    AMQP_URL: urlWithProtocol('amqp', 'amqps'),
    /** Where payout destinations are resolved. */
    LEDGER_GRPC_ADDR: grpcTarget(),
    /** Scaled by SANDBOX_TIME_SCALE: the sandbox bank settles an accepted payout this long after submission. */
    SANDBOX_BANK_SETTLE_DELAY_MS: positiveInt()
      .max(24 * 60 * 60_000)
      .default(5_000),
    /** Wall-clock: how often each replica looks for due payout steps. */
    PAYOUT_RUNNER_INTERVAL_MS: positiveInt().max(60_000).default(500),
    PAYOUT_RUNNER_BATCH_SIZE: positiveInt().max(500).default(50),
    /**
     * Wall-clock: a claimed step (payout, transfer, send, mobile-money credit) is retaken by any
     * replica this long after its owner's last renewal (a live owner renews every PAYOUT_LEASE_RENEW_MS).
     */
    PAYOUT_STEP_LEASE_MS: positiveInt().min(LEASE_MS_MIN).max(LEASE_MS_MAX).default(LEASE_MS_DEFAULT),
    /** Wall-clock: how often a live owner renews the leases of its claimed steps and running creates; at most half of the shorter lease. */
    PAYOUT_LEASE_RENEW_MS: positiveInt().max(LEASE_MS_MAX).default(1_000),
    /** Wall-clock: how soon a submitted payout's status is read again. */
    PAYOUT_STATUS_POLL_MS: positiveInt()
      .max(10 * 60_000)
      .default(250),
    /** Wall-clock: an instruction with no bank answer this long after it was handed over is reported as stuck. */
    PAYOUT_STUCK_AFTER_MS: positiveInt()
      .max(7 * 24 * 60 * 60_000)
      .default(15 * 60_000),
    /** Wall-clock: how often each replica asks trading for sell orders whose KES proceeds are due. */
    SELL_PROCEEDS_POLL_MS: positiveInt().max(60_000).default(500),
    /** Sell orders claimed from trading per call (trading answers at most 100). */
    SELL_PROCEEDS_BATCH_SIZE: positiveInt().max(100).default(50),
    /** The shared daily cap and sell orders' proceeds (trading), code recipients and wallets (wallet registry), codes (notifier). */
    TRADING_GRPC_ADDR: grpcTarget(),
    WALLET_REGISTRY_GRPC_ADDR: grpcTarget(),
    NOTIFIER_GRPC_ADDR: grpcTarget(),
    /** 64 hex characters: the HMAC key under which confirmation codes are stored. Rotating it voids every live code. */
    CODE_HASH_KEY: hexKey32(),
    /** Scaled by SANDBOX_TIME_SCALE: how long a confirmation code lives (each resend starts it afresh). */
    CONFIRMATION_CODE_LIFETIME_MS: positiveInt()
      .min(1_000)
      .max(24 * 60 * 60_000)
      .default(10 * 60_000),
    /** Wrong codes a partner may send across all its confirmations within the window; the one that reaches it locks them all until an operator clears it. */
    CONFIRMATION_WRONG_CODE_BUDGET: positiveInt()
      .min(WRONG_CODES_MAX_BOUNDS.min)
      .max(WRONG_CODES_MAX_BOUNDS.max)
      .default(WRONG_CODES_MAX_DEFAULT),
    /** Wall-clock, never scaled (a security bound): the rolling window of CONFIRMATION_WRONG_CODE_BUDGET. */
    CONFIRMATION_WRONG_CODE_WINDOW_MS: positiveInt()
      .min(WRONG_CODE_WINDOW_MS_BOUNDS.min)
      .max(WRONG_CODE_WINDOW_MS_BOUNDS.max)
      .default(WRONG_CODE_WINDOW_MS_DEFAULT),
    /** Flat KES fee per transfer, every rail (2 decimals). */
    TRANSFER_FEE_FLAT_KES: z
      .string()
      .regex(/^\d{1,9}\.\d{2}$/)
      .default('25.00'),
    /** Per-transfer ceiling, KES (2 decimals): above it TRANSFER_EXCEEDS_PER_TRANSFER_CAP. */
    TRANSFER_CAP_KES: z
      .string()
      .regex(/^\d{1,12}\.\d{2}$/)
      .default('1000000.00'),
    /** The service's bounds on one USDT send (6 decimals). */
    USDT_SEND_MIN_USDT: z
      .string()
      .regex(/^\d{1,9}\.\d{6}$/)
      .default('1.000000'),
    USDT_SEND_CAP_USDT: z
      .string()
      .regex(/^\d{1,12}\.\d{6}$/)
      .default('100000.000000'),
    /** Scaled by SANDBOX_TIME_SCALE: the sandbox chain confirms an accepted send this long after submission. */
    SANDBOX_CHAIN_CONFIRM_DELAY_MS: positiveInt()
      .max(24 * 60 * 60_000)
      .default(5_000),
    /** Wall-clock: how often each replica looks for due transfer steps (lapsed codes, abandoned creates). */
    TRANSFER_SCHEDULER_INTERVAL_MS: positiveInt().max(60_000).default(500),
    TRANSFER_SCHEDULER_BATCH_SIZE: positiveInt().max(500).default(50),
    /**
     * Wall-clock: a create whose owner stopped renewing its claim this long ago (its replica died) is
     * taken over by a repeat or undone by the scheduler (a batch's row: twice this).
     */
    TRANSFER_CREATE_LEASE_MS: positiveInt()
      .min(LEASE_MS_MIN)
      .max(LEASE_MS_MAX / 2)
      .default(LEASE_MS_DEFAULT),
    /** Scaled by SANDBOX_TIME_SCALE: an unanswered mobile-money prompt expires this long after it was sent. */
    MOBILE_MONEY_PUSH_LIFETIME_MS: positiveInt()
      .max(60 * 60_000)
      .default(120_000),
    /** Wall-clock: how often each replica books approved prompts (and retries ones the ledger did not take). */
    MOBILE_MONEY_CREDIT_INTERVAL_MS: positiveInt().max(60_000).default(1_000),
    ...holdReconcileEnv(),
    ...retentionEnv(),
    ...outboxRetentionEnv(),
  })
  // One refinement, so the schema's variables stay readable through one wrapper (the compose check reads them).
  .superRefine((config, context) => {
    refuseDevelopmentKeysInProduction<typeof config>('CODE_HASH_KEY')(config, context);
    for (const name of ['PAYOUT_STEP_LEASE_MS', 'TRANSFER_CREATE_LEASE_MS'] as const) {
      const problem = leaseTimingProblem({ leaseMs: config[name], renewEveryMs: config.PAYOUT_LEASE_RENEW_MS });
      if (problem)
        context.addIssue({
          code: 'custom',
          path: ['PAYOUT_LEASE_RENEW_MS'],
          message: `PAYOUT_LEASE_RENEW_MS must be at most half of ${name} (${config[name]} ms): ${problem}`,
        });
    }
  });

export type Config = z.infer<typeof configSchema>;

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadConfigOrExit(configSchema, env);
}

/** The sandbox chain's confirmation delay, scaled in sandbox mode (never below 1 ms). */
export function sandboxChainDelayMs(config: Config): number {
  return Math.max(1, Math.round(config.SANDBOX_CHAIN_CONFIRM_DELAY_MS * config.SANDBOX_TIME_SCALE));
}

/** The confirmation code lifetime, scaled in sandbox mode. */
export function confirmationLifetimeMs(config: Config): number {
  return Math.max(1_000, Math.round(config.CONFIRMATION_CODE_LIFETIME_MS * config.SANDBOX_TIME_SCALE));
}

/** The per-partner budget of wrong confirmation codes. */
export function wrongCodeBudget(config: Config): WrongCodeBudgetSettings {
  return { wrongCodesMax: config.CONFIRMATION_WRONG_CODE_BUDGET, windowMs: config.CONFIRMATION_WRONG_CODE_WINDOW_MS };
}

/** The sandbox bank's settlement delay, scaled in sandbox mode (never below 1 ms). */
export function sandboxSettleDelayMs(config: Config): number {
  return Math.max(1, Math.round(config.SANDBOX_BANK_SETTLE_DELAY_MS * config.SANDBOX_TIME_SCALE));
}

/** The mobile-money prompt's lifetime, scaled in sandbox mode (never below 1 ms). */
export function pushLifetimeMs(config: Config): number {
  return sandboxScaledMs(config, config.MOBILE_MONEY_PUSH_LIFETIME_MS);
}
