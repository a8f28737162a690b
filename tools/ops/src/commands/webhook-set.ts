/**
 * `webhook set`: registers or replaces the partner's webhook endpoint and
 * signing secret. On a secret change the previous secret keeps signing
 * alongside the new one for the rotation overlap (service default 24 hours).
 */
import { FlagReader, FlagValues } from '../flags';
import { defineCommand, PARTNER_FLAG, valueFlag } from './command';

const URL_LENGTH_MAX = 2_048;
/** webhook_delivery.v1 SetEndpointRequest bounds. */
const SECRET_LENGTH_MIN = 16;
const SECRET_LENGTH_MAX = 256;
const ROTATION_OVERLAP_SECONDS_MAX = 30 * 24 * 60 * 60;
/** 0 asks the service for its default overlap. */
const ROTATION_OVERLAP_SECONDS_DEFAULT = 0;

export interface WebhookSetInput {
  partnerId: string;
  url: string;
  signingSecret: string;
  rotationOverlapSeconds: number;
}

export interface WebhookSetResult {
  partnerId: string;
  url: string;
}

export function parseWebhookSet(values: FlagValues): WebhookSetInput {
  const flags = new FlagReader(values);
  const input = {
    partnerId: flags.uuid('partner', true),
    url: flags.httpsUrl('url', URL_LENGTH_MAX),
    signingSecret: flags.secret('secret', SECRET_LENGTH_MIN, SECRET_LENGTH_MAX),
    rotationOverlapSeconds: flags.integer(
      'rotation-overlap-seconds',
      { min: 1, max: ROTATION_OVERLAP_SECONDS_MAX },
      ROTATION_OVERLAP_SECONDS_DEFAULT,
    ),
  };
  flags.done();
  return input;
}

export const webhookSet = defineCommand<WebhookSetInput, WebhookSetResult>({
  name: 'webhook set',
  summary: "Set the partner's webhook URL and signing secret (rotation keeps the old secret signing for an overlap).",
  synopsis: '--partner ID --url U --secret S [--rotation-overlap-seconds N]',
  flags: {
    partner: PARTNER_FLAG,
    url: valueFlag(`U: the endpoint, an https:// URL of at most ${URL_LENGTH_MAX} characters (required)`),
    secret: valueFlag(
      `S: the signing secret, ${SECRET_LENGTH_MIN} to ${SECRET_LENGTH_MAX} characters, taken exactly as given (required)`,
    ),
    'rotation-overlap-seconds': valueFlag(
      `N: how long the previous secret keeps signing, an integer from 1 to ${ROTATION_OVERLAP_SECONDS_MAX} (default: the service's, 24 hours)`,
    ),
  },
  parse: parseWebhookSet,
  async run(input, clients) {
    const endpoint = await clients.webhookAdmin().setEndpoint(input);
    return { partnerId: endpoint.partnerId, url: endpoint.url };
  },
  describe: (result) => `Webhook endpoint of partner ${result.partnerId} set to ${result.url}.`,
});
