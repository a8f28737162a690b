import { commonServiceEnv, loadConfigOrExit, metricsEnv, urlWithProtocol, z } from '@platform/config';

// A sender address in plain form (no display name): the header is built from it as is.
const MAIL_ADDRESS = /^[\x21-\x3f\x41-\x7e]{1,64}@[A-Za-z0-9.-]{1,189}$/;

export const configSchema = z
  .object({
    ...commonServiceEnv,
    ...metricsEnv(9106),
    /** SMTP server, smtp:// (STARTTLS required) or smtps://; required in production mode. */
    SMTP_URL: urlWithProtocol('smtp', 'smtps').optional(),
    /** The From address of every message; required in production mode. */
    SMTP_FROM: z.string().regex(MAIL_ADDRESS, 'expected an e-mail address').optional(),
  })
  .superRefine((config, context) => {
    if (config.PLATFORM_MODE !== 'production') return;
    for (const name of ['SMTP_URL', 'SMTP_FROM'] as const) {
      if (!config[name])
        context.addIssue({ code: z.ZodIssueCode.custom, path: [name], message: 'required in production mode' });
    }
  });

export type Config = z.infer<typeof configSchema>;

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadConfigOrExit(configSchema, env);
}
