/** `credential revoke`: immediate and final; requests signed with the key are refused from then on. */
import { FlagReader, FlagValues } from '../flags';
import { defineCommand, valueFlag } from './command';

const API_KEY_LENGTH_MAX = 128;

export interface CredentialRevokeInput {
  apiKey: string;
}

export interface CredentialRevokeResult {
  apiKey: string;
  status: string;
}

export function parseCredentialRevoke(values: FlagValues): CredentialRevokeInput {
  const flags = new FlagReader(values);
  const input = { apiKey: flags.text('api-key', API_KEY_LENGTH_MAX) };
  flags.done();
  return input;
}

export const credentialRevoke = defineCommand<CredentialRevokeInput, CredentialRevokeResult>({
  name: 'credential revoke',
  summary: 'Revoke an API key, immediately and for good.',
  synopsis: '--api-key K',
  flags: { 'api-key': valueFlag(`K: the API key to revoke, 1 to ${API_KEY_LENGTH_MAX} characters (required)`) },
  parse: parseCredentialRevoke,
  async run(input, clients) {
    const revoked = await clients.partnerAdmin().revokeCredential({ apiKey: input.apiKey });
    return { apiKey: revoked.apiKey, status: revoked.status };
  },
  describe: (result) => `Credential ${result.apiKey} is ${result.status}.`,
});
