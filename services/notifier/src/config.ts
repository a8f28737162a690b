import { commonServiceEnv, loadConfigOrExit, z } from '@platform/config';

export const configSchema = z.object({
  ...commonServiceEnv,
});

export type Config = z.infer<typeof configSchema>;

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadConfigOrExit(configSchema, env);
}
