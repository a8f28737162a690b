import { commonServiceEnv, loadConfigOrExit, positiveInt, urlWithProtocol, z } from '@platform/config';

export const configSchema = z.object({
  ...commonServiceEnv,
  AMQP_URL: urlWithProtocol('amqp', 'amqps'),
  /** Which chain custodian allocates deposit addresses. Only the sandbox one exists so far. */
  CHAIN_CUSTODIAN: z.enum(['sandbox']).default('sandbox'),
  OUTBOX_POLL_INTERVAL_MS: positiveInt().default(200),
  /** How often each replica looks for overdue holds to expire. */
  HOLD_SWEEP_INTERVAL_MS: positiveInt().default(1_000),
  /** Holds expired per transaction by the sweeper. */
  HOLD_SWEEP_BATCH_SIZE: positiveInt().default(100),
}).superRefine((config, context) => {
  if (config.PLATFORM_MODE === 'production' && config.CHAIN_CUSTODIAN === 'sandbox') {
    context.addIssue({ code: 'custom', path: ['CHAIN_CUSTODIAN'], message: 'the sandbox custodian cannot run in production mode' });
  }
});

export type Config = z.infer<typeof configSchema>;

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadConfigOrExit(configSchema, env);
}
