// Proves request authentication end to end against the test stack: a signed
// GET /v1/health answers 200 with X-Request-Id, and every failure (missing key,
// unknown key, bad signature, stale and future timestamps, malformed nonce,
// replayed nonce, revoked credential) answers the identical 401 body, byte for
// byte apart from requestId.
import { randomBytes } from 'node:crypto';
import { signedRequestHeaders } from '@platform/crypto';
import { UUID_PATTERN } from '@platform/ids';
import { createTestPartner, HttpResult, PartnerHttpClient, runOps, TestPartner } from '@platform/testing';
import { CREDENTIAL_CACHE_TTL_MS, ISO_MS, requestIdOf, sleep, uniform401, unknownApiKey } from './helpers';

const TOLERANCE_MS = 300_000;
// Well past the tolerance, so clock drift between the test and the gateway cannot matter.
const BEYOND_TOLERANCE_MS = TOLERANCE_MS + 5_000;

let partner: TestPartner;
let client: PartnerHttpClient;

beforeAll(async () => {
  partner = await createTestPartner();
  client = new PartnerHttpClient(partner);
});

function healthHeaders(overrides: { apiKey?: string; signingSecret?: string; nowMs?: number; nonce?: string } = {}) {
  return signedRequestHeaders(
    { apiKey: overrides.apiKey ?? partner.apiKey, signingSecret: overrides.signingSecret ?? partner.signingSecret },
    {
      method: 'GET',
      pathAndQuery: '/v1/health',
      nowMs: overrides.nowMs,
      nonce: overrides.nonce ?? randomBytes(16).toString('hex'),
    },
  );
}

function withoutApiKey(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'x-service-key'));
}

function expectUniform401(result: HttpResult): void {
  expect(result.status).toBe(401);
  expect(result.text).toBe(uniform401(requestIdOf(result)));
}

describe('request authentication', () => {
  it('answers a signed GET /v1/health with 200 and X-Request-Id', async () => {
    const result = await client.get('/v1/health');
    expect(result.status).toBe(200);
    expect(requestIdOf(result)).toMatch(UUID_PATTERN);
    expect(result.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(result.body).toEqual({
      status: expect.stringMatching(/^(ok|degraded)$/),
      time: expect.stringMatching(ISO_MS),
      version: expect.any(String),
    });
  });

  it.each([
    ['a missing key', () => ({ tamper: withoutApiKey })],
    ['no signature headers at all', () => ({ unsigned: true })],
    [
      'an unknown key',
      () => ({
        headers: healthHeaders({
          apiKey: unknownApiKey(),
          signingSecret: `sk_${randomBytes(32).toString('base64url')}`,
        }),
      }),
    ],
    [
      'a bad signature',
      () => ({ headers: healthHeaders({ signingSecret: `sk_${randomBytes(32).toString('base64url')}` }) }),
    ],
    ['a stale timestamp', () => ({ headers: healthHeaders({ nowMs: Date.now() - BEYOND_TOLERANCE_MS }) })],
    ['a future timestamp', () => ({ headers: healthHeaders({ nowMs: Date.now() + BEYOND_TOLERANCE_MS }) })],
    ['a malformed nonce', () => ({ headers: healthHeaders({ nonce: 'short' }) })],
    [
      'a malformed signature',
      () => ({ tamper: (headers: Record<string, string>) => ({ ...headers, 'X-Service-Signature': 'v1=not-hex' }) }),
    ],
  ])('answers the uniform 401 for %s', async (_what, options) => {
    expectUniform401(await client.get('/v1/health', options()));
  });

  it('answers the uniform 401 for a replayed nonce', async () => {
    const headers = healthHeaders();
    expect((await client.get('/v1/health', { headers })).status).toBe(200);
    expectUniform401(await client.get('/v1/health', { headers }));
  });

  it('answers the uniform 401 for a revoked credential, within the cache bound', async () => {
    const issued = await runOps<{ apiKey: string; signingSecret: string; scopes: string[] }>([
      'credential',
      'issue',
      '--partner',
      partner.partnerId,
    ]);
    const second = new PartnerHttpClient(issued);
    expect((await second.get('/v1/health')).status).toBe(200);
    const revoked = await runOps<{ apiKey: string; status: string }>([
      'credential',
      'revoke',
      '--api-key',
      issued.apiKey,
    ]);
    expect(revoked).toEqual({ apiKey: issued.apiKey, status: 'revoked' });
    await sleep(CREDENTIAL_CACHE_TTL_MS + 100);
    expectUniform401(await second.get('/v1/health'));
    // The partner's other credential is untouched.
    expect((await client.get('/v1/health')).status).toBe(200);
  });

  it('answers 401 bodies that differ only in requestId', async () => {
    const results = await Promise.all([
      client.get('/v1/health', { tamper: withoutApiKey }),
      client.get('/v1/health', { headers: healthHeaders({ apiKey: unknownApiKey() }) }),
      client.get('/v1/health', { headers: healthHeaders({ signingSecret: 'sk_wrong' }) }),
      client.get('/v1/health', { headers: healthHeaders({ nowMs: Date.now() - BEYOND_TOLERANCE_MS }) }),
    ]);
    const bodies = new Set(results.map((result) => result.text.replace(requestIdOf(result), '<id>')));
    expect([...bodies]).toEqual([uniform401('<id>')]);
  });
});
