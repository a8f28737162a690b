// Proves the flags of `credential issue`, `credential revoke`, `webhook set`,
// `deliveries list` and `confirmations unlock` become exactly the gRPC requests
// the services expect, with their defaults, and that bad flags are refused
// before any call.
import { CliError } from '../cli-error';
import { parseConfirmationsUnlock } from './confirmations-unlock';
import { parseCredentialIssue } from './credential-issue';
import { parseCredentialRevoke } from './credential-revoke';
import { parseDeliveriesList } from './deliveries-list';
import { parseDeliveriesReplay } from './deliveries-replay';
import { parseWebhookSet } from './webhook-set';

const partner = '6f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11';

function refused(parse: () => unknown): string {
  try {
    parse();
  } catch (error) {
    expect((error as CliError).code).toBe('VALIDATION_FAILED');
    return (error as CliError).message;
  }
  throw new Error('expected VALIDATION_FAILED');
}

describe('credential issue', () => {
  it('asks for every scope when none is named', () => {
    expect(parseCredentialIssue({ partner })).toEqual({ partnerId: partner, scopes: [] });
  });

  it('narrows to the named scopes', () => {
    expect(parseCredentialIssue({ partner, scopes: 'read,trade' }).scopes).toEqual(['read', 'trade']);
  });

  it('refuses an unknown scope and a missing partner', () => {
    expect(refused(() => parseCredentialIssue({ scopes: 'read,admin' }))).toBe(
      'Validation failed on: --partner (required), --scopes (comma-separated, from read, trade, payouts, wallets, funding, collections, sandbox, webhooks)',
    );
  });
});

describe('credential revoke', () => {
  it('takes the API key', () => {
    expect(parseCredentialRevoke({ 'api-key': ' pk_live_1 ' })).toEqual({ apiKey: 'pk_live_1' });
    expect(refused(() => parseCredentialRevoke({}))).toBe('Validation failed on: --api-key (required)');
  });
});

describe('webhook set', () => {
  const secret = 'whsec_0123456789abcdef';

  it('builds the SetEndpoint request, with 0 meaning the service default overlap', () => {
    expect(parseWebhookSet({ partner, url: 'https://hooks.example.com/in', secret })).toEqual({
      partnerId: partner,
      url: 'https://hooks.example.com/in',
      signingSecret: secret,
      rotationOverlapSeconds: 0,
    });
    expect(
      parseWebhookSet({ partner, url: 'https://hooks.example.com/in', secret, 'rotation-overlap-seconds': '3600' })
        .rotationOverlapSeconds,
    ).toBe(3600);
  });

  it('refuses a plain-HTTP URL, a short secret and an unbounded overlap', () => {
    expect(
      refused(() =>
        parseWebhookSet({
          partner,
          url: 'http://hooks.example.com',
          secret: 'short',
          'rotation-overlap-seconds': '99999999',
        }),
      ),
    ).toBe(
      'Validation failed on: --url (an https:// URL), --secret (16 to 256 characters), --rotation-overlap-seconds (an integer from 1 to 2592000)',
    );
  });
});

describe('deliveries list', () => {
  it('lists every status, 100 at most, unless told otherwise', () => {
    expect(parseDeliveriesList({ partner })).toEqual({ partnerId: partner, deadOnly: false, limit: 100 });
    expect(parseDeliveriesList({ partner, dead: true, limit: '500' })).toEqual({
      partnerId: partner,
      deadOnly: true,
      limit: 500,
    });
  });

  it('bounds the limit', () => {
    expect(refused(() => parseDeliveriesList({ partner, limit: '501' }))).toBe(
      'Validation failed on: --limit (an integer from 1 to 500)',
    );
    expect(refused(() => parseDeliveriesList({ partner, limit: '0' }))).toBe(
      'Validation failed on: --limit (an integer from 1 to 500)',
    );
  });
});

describe('deliveries replay', () => {
  const delivery = '0b8f3c1e-5d7a-4c2b-9e1f-3a4b5c6d7e8f';

  it('replays one delivery, or a partner range with the default limit', () => {
    expect(parseDeliveriesReplay({ delivery })).toEqual({ kind: 'one', deliveryId: delivery });
    expect(
      parseDeliveriesReplay({
        partner,
        since: '2026-01-01T00:00:00Z',
        until: '2026-01-02T00:00:00.000Z',
        'dead-only': true,
      }),
    ).toEqual({
      kind: 'range',
      partnerId: partner,
      since: '2026-01-01T00:00:00Z',
      until: '2026-01-02T00:00:00.000Z',
      deadOnly: true,
      limit: 500,
    });
  });

  it('refuses a range without its times, bad times, and both selectors at once', () => {
    expect(refused(() => parseDeliveriesReplay({}))).toBe('Validation failed on: --delivery (required)');
    expect(refused(() => parseDeliveriesReplay({ partner, since: 'yesterday' }))).toBe(
      'Validation failed on: --since (an ISO 8601 UTC time like 2026-01-31T00:00:00Z), --until (required with --partner)',
    );
    expect(refused(() => parseDeliveriesReplay({ delivery, partner }))).toBe(
      'Validation failed on: --partner (not with --delivery)',
    );
  });
});

describe('confirmations unlock', () => {
  it('takes the partner, and nothing else', () => {
    expect(parseConfirmationsUnlock({ partner })).toEqual({ partnerId: partner });
    expect(refused(() => parseConfirmationsUnlock({}))).toBe('Validation failed on: --partner (required)');
    expect(refused(() => parseConfirmationsUnlock({ partner: 'p-1' }))).toBe(
      'Validation failed on: --partner (expected a UUID)',
    );
  });
});
