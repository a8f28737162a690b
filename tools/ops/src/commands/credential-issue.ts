/** `credential issue`: a new API key and signing secret for a partner (rotation: several may be active at once). */
import { FlagReader, FlagValues } from '../flags';
import { labelled } from '../output';
import { defineCommand, PARTNER_FLAG, valueFlag } from './command';

/** The scopes a partner credential may carry, as the partner contract names them; the gateway refuses any other. */
export const CREDENTIAL_SCOPES = [
  'read',
  'trade',
  'payouts',
  'wallets',
  'funding',
  'collections',
  'sandbox',
  'webhooks',
] as const;
export type CredentialScope = (typeof CREDENTIAL_SCOPES)[number];

export interface CredentialIssueInput {
  partnerId: string;
  /** Empty: every scope. */
  scopes: CredentialScope[];
}

export interface CredentialIssueResult {
  apiKey: string;
  signingSecret: string;
  scopes: string[];
}

export function parseCredentialIssue(values: FlagValues): CredentialIssueInput {
  const flags = new FlagReader(values);
  const input = { partnerId: flags.uuid('partner', true), scopes: flags.list('scopes', CREDENTIAL_SCOPES) };
  flags.done();
  return input;
}

export const credentialIssue = defineCommand<CredentialIssueInput, CredentialIssueResult>({
  name: 'credential issue',
  summary: 'Issue a new API key and signing secret (all scopes unless narrowed).',
  synopsis: `--partner ID [--scopes ${CREDENTIAL_SCOPES.join(',')}]`,
  flags: {
    partner: PARTNER_FLAG,
    scopes: valueFlag(`LIST: comma-separated, from ${CREDENTIAL_SCOPES.join(', ')} (default: all of them)`),
  },
  parse: parseCredentialIssue,
  async run(input, clients) {
    const issued = await clients.partnerAdmin().issueCredential({ partnerId: input.partnerId, scopes: input.scopes });
    return { apiKey: issued.apiKey, signingSecret: issued.signingSecret, scopes: issued.scopes };
  },
  describe: (result) =>
    [
      'Credential issued.',
      labelled([
        ['API key', result.apiKey],
        ['Signing secret', result.signingSecret],
        ['Scopes', result.scopes.join(', ')],
      ]),
      'The signing secret is shown this once and cannot be read again: store it now.',
    ].join('\n'),
});
