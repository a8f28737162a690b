/** `credential issue`: a new API key and signing secret for a partner (rotation: several may be active at once). */
// The partner contract's list of scopes, from its own module: an ops call loads no zod schema.
import { SCOPES, type Scope } from '@platform/openapi/dist/contract/scopes';
import { FlagReader, FlagValues } from '../flags';
import { labelled } from '../output';
import { defineCommand, PARTNER_FLAG, valueFlag } from './command';

export interface CredentialIssueInput {
  partnerId: string;
  /** Empty: every scope. */
  scopes: Scope[];
}

export interface CredentialIssueResult {
  apiKey: string;
  signingSecret: string;
  scopes: string[];
}

export function parseCredentialIssue(values: FlagValues): CredentialIssueInput {
  const flags = new FlagReader(values);
  const input = { partnerId: flags.uuid('partner', true), scopes: flags.list('scopes', SCOPES) };
  flags.done();
  return input;
}

export const credentialIssue = defineCommand<CredentialIssueInput, CredentialIssueResult>({
  name: 'credential issue',
  summary: 'Issue a new API key and signing secret (all scopes unless narrowed).',
  synopsis: `--partner ID [--scopes ${SCOPES.join(',')}]`,
  flags: {
    partner: PARTNER_FLAG,
    scopes: valueFlag(`LIST: comma-separated, from ${SCOPES.join(', ')} (default: all of them)`),
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
