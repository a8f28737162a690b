import {
  commonServiceEnv,
  loadConfigOrExit,
  metricsEnv,
  outboxRetentionEnv,
  positiveInt,
  retentionEnv,
  urlWithProtocol,
  z,
} from '@platform/config';

const SANDBOX_PAYBILL_NUMBER = '600100';

export const configSchema = z
  .object({
    ...commonServiceEnv,
    ...metricsEnv(9102),
    AMQP_URL: urlWithProtocol('amqp', 'amqps'),
    /** Which chain custodian allocates deposit addresses. Only the sandbox one exists so far. */
    CHAIN_CUSTODIAN: z.enum(['sandbox']).default('sandbox'),
    OUTBOX_POLL_INTERVAL_MS: positiveInt().default(200),
    /** How often each replica looks for overdue holds to expire. */
    HOLD_SWEEP_INTERVAL_MS: positiveInt().default(1_000),
    /** Holds expired per transaction by the sweeper. */
    HOLD_SWEEP_BATCH_SIZE: positiveInt().default(100),
    /** The longest a USDT deposit is held for attribution, whatever the sell orders' send-before times. */
    DEPOSIT_HOLD_MAX_MS: positiveInt().default(24 * 60 * 60_000),
    /** The bank's paybill number partners are told to pay into (GET /v1/funding). */
    LEDGER_PAYBILL_NUMBER: z
      .string()
      .regex(/^\d{5,7}$/)
      .default(SANDBOX_PAYBILL_NUMBER),
    /** The account holder name the payer's rail shows for that paybill. */
    LEDGER_BENEFICIARY_NAME: z.string().min(1).max(100).default('Platform Sandbox Collections'),
    ...retentionEnv(),
    ...outboxRetentionEnv(),
  })
  .superRefine((config, context) => {
    // The sandbox paybill must never be shown to partners paying real money.
    if (config.PLATFORM_MODE === 'production' && config.LEDGER_PAYBILL_NUMBER === SANDBOX_PAYBILL_NUMBER) {
      context.addIssue({
        code: 'custom',
        path: ['LEDGER_PAYBILL_NUMBER'],
        message: 'set the real paybill number in production mode',
      });
    }
    if (config.PLATFORM_MODE === 'production' && config.CHAIN_CUSTODIAN === 'sandbox') {
      context.addIssue({
        code: 'custom',
        path: ['CHAIN_CUSTODIAN'],
        message: 'the sandbox custodian cannot run in production mode',
      });
    }
  });

export type Config = z.infer<typeof configSchema>;

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadConfigOrExit(configSchema, env);
}
