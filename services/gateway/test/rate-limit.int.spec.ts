// Proves the partner rate limit against the test stack (Redis, atomic Lua
// window of whole seconds): with the default of 120 a minute, 120 signed requests
// succeed and the 121st is 429 with Retry-After-partner and exactly the body
// of the error envelope; a second credential of the same partner is limited too;
// another partner is not; a per-partner limit is honoured; and every answer
// says where the partner stands (RateLimit-Limit, -Remaining, -Reset).
import { createTestPartner, HttpResult, PartnerHttpClient, runOps, TestPartner } from '@platform/testing';
import { requestIdOf } from './helpers';

const DEFAULT_LIMIT_PER_MINUTE = 120;
// Requests in flight at once: fast enough to stay well inside the minute, gentle on the stack.
const CONCURRENCY = 10;

async function sendMany(clients: PartnerHttpClient[], count: number): Promise<HttpResult[]> {
  const results: HttpResult[] = [];
  for (let sent = 0; sent < count; sent += CONCURRENCY) {
    const batch = Array.from({ length: Math.min(CONCURRENCY, count - sent) }, (_, index) =>
      clients[(sent + index) % clients.length].get('/v1/health'),
    );
    results.push(...(await Promise.all(batch)));
  }
  return results;
}

function expectRateLimited(result: HttpResult): void {
  expect(result.status).toBe(429);
  expect(result.text).toBe(
    `{"statusCode":429,"message":"Too Many Requests","error":"Too Many Requests","requestId":"${requestIdOf(result)}"}`,
  );
  const retryAfter = result.headers.get('retry-after-partner');
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(60);
  expect(result.body).not.toHaveProperty('retryAfterSeconds');
  expect(result.headers.get('ratelimit-remaining')).toBe('0');
  expect(result.headers.get('ratelimit-reset')).toBe(retryAfter);
}

describe('partner rate limit', () => {
  let partner: TestPartner;
  let first: PartnerHttpClient;
  let second: PartnerHttpClient;

  beforeAll(async () => {
    partner = await createTestPartner();
    first = new PartnerHttpClient(partner);
    second = new PartnerHttpClient(
      await runOps<{ apiKey: string; signingSecret: string }>(['credential', 'issue', '--partner', partner.partnerId]),
    );
  });

  it('admits 120 requests a minute across the partner credentials and refuses the 121st', async () => {
    const admitted = await sendMany([first, second], DEFAULT_LIMIT_PER_MINUTE);
    expect(admitted.map((result) => result.status)).toEqual(Array(DEFAULT_LIMIT_PER_MINUTE).fill(200));
    // Every admitted answer carries the limit, a distinct remaining count and a reset within the window.
    expect(admitted.map((result) => result.headers.get('ratelimit-limit'))).toEqual(
      Array(DEFAULT_LIMIT_PER_MINUTE).fill('120'),
    );
    const remaining = admitted.map((result) => Number(result.headers.get('ratelimit-remaining'))).sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: DEFAULT_LIMIT_PER_MINUTE }, (_, index) => index));
    for (const result of admitted) {
      expect(Number(result.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(1);
      expect(Number(result.headers.get('ratelimit-reset'))).toBeLessThanOrEqual(60);
    }
    expectRateLimited(await first.get('/v1/health'));
  });

  it('limits the second credential of the same partner too', async () => {
    expectRateLimited(await second.get('/v1/health'));
  });

  it('does not limit another partner', async () => {
    const other = new PartnerHttpClient(await createTestPartner());
    expect((await other.get('/v1/health')).status).toBe(200);
  });
});

describe('per-partner limit', () => {
  it('honours the limit the partner was created with', async () => {
    const client = new PartnerHttpClient(await createTestPartner({ rateLimitPerMinute: 5 }));
    const admitted = await sendMany([client], 5);
    expect(admitted.map((result) => result.status)).toEqual([200, 200, 200, 200, 200]);
    expect(admitted.map((result) => result.headers.get('ratelimit-limit'))).toEqual(['5', '5', '5', '5', '5']);
    expectRateLimited(await client.get('/v1/health'));
  });
});
