import { commonServiceEnv, loadConfigOrExit, urlWithProtocol, z } from '@platform/config';

export const configSchema = z.object({
  ...commonServiceEnv,
  /** Broker the outbox relay publishes this service's events to. */
  AMQP_URL: urlWithProtocol('amqp', 'amqps'),
});

export type Config = z.infer<typeof configSchema>;

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadConfigOrExit(configSchema, env);
}
