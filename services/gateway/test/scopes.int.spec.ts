// Proves credential scopes against the test stack: a credential issued with
// `--scopes read` answers 403 INSUFFICIENT_SCOPE on POST /v1/quotes and 200 on
// GET /v1/health; one without read is refused every GET; the partner's full
// credential is not refused by scope.
import { createTestPartner, PartnerHttpClient, runOps, TestPartner } from '@platform/testing';
import { envelope } from './helpers';

interface IssuedCredential {
  apiKey: string;
  signingSecret: string;
  scopes: string[];
}

const QUOTE = { side: 'buy', kesAmount: '1000.00' } as const;

let partner: TestPartner;

beforeAll(async () => {
  partner = await createTestPartner();
});

function issue(scopes: string): Promise<IssuedCredential> {
  return runOps<IssuedCredential>(['credential', 'issue', '--partner', partner.partnerId, '--scopes', scopes]);
}

describe('credential scopes', () => {
  it('refuses a read-only credential on POST /v1/quotes and serves it GET /v1/health', async () => {
    const readOnly = await issue('read');
    expect(readOnly.scopes).toEqual(['read']);
    const client = new PartnerHttpClient(readOnly);
    const refused = await client.post('/v1/quotes', QUOTE);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(envelope(refused, 403, 'INSUFFICIENT_SCOPE', 'Forbidden'));
    await expect(client.sdk.health.get()).resolves.toMatchObject({ status: expect.stringMatching(/^(ok|degraded)$/) });
  });

  it('checks scope before the body, so even a malformed quote is 403', async () => {
    const readOnly = new PartnerHttpClient(await issue('read'));
    const refused = await readOnly.post('/v1/quotes', undefined, { rawBody: '{"side":' });
    expect(refused.status).toBe(403);
  });

  it('refuses a credential without read on every GET', async () => {
    const tradeOnly = new PartnerHttpClient(await issue('trade'));
    const refused = await tradeOnly.get('/v1/health');
    expect(refused.body).toEqual(envelope(refused, 403, 'INSUFFICIENT_SCOPE', 'Forbidden'));
    // The SDK's typed error carries the same facts.
    await expect(tradeOnly.sdk.balances.list()).rejects.toMatchObject({
      status: 403,
      code: 'INSUFFICIENT_SCOPE',
      requestId: expect.any(String),
    });
    await expect(tradeOnly.sdk.quotes.create(QUOTE)).resolves.toMatchObject({ side: 'buy', kesAmount: '1000.00' });
  });

  it('does not refuse the partner full credential by scope', async () => {
    const full = new PartnerHttpClient(partner).sdk;
    await expect(full.sandbox.setRate({ bid: '129.0000', ask: '130.0000' })).resolves.toMatchObject({
      bid: '129.0000',
      ask: '130.0000',
    });
    await expect(full.quotes.create(QUOTE)).resolves.toMatchObject({ rate: '130.0000' });
  });

  it('refuses to issue an unknown scope', async () => {
    await expect(issue('read,admin')).rejects.toThrow();
  });
});
