/**
 * Proves the transport against a scripted fetch: each attempt is signed afresh
 * (new nonce), a 429 is retried after Retry-After-partner, an unsafe create is
 * sent once on a 503, a keyed create is retried, and refusals become
 * PartnerApiError carrying status, code, message, requestId and retryAfterSeconds.
 */
import { PartnerApiError } from './errors';
import { PartnerClient } from './partner-client';

type Answer = { status: number; body?: unknown; headers?: Record<string, string> };

function scriptedClient(answers: Answer[]) {
  const calls: Array<{ url: string; init: RequestInit }> = [];
  const sleeps: number[] = [];
  const fetchImpl = (async (url: string, init: RequestInit) => {
    calls.push({ url, init });
    const answer = answers.shift() ?? { status: 500 };
    return new Response(answer.body === undefined ? null : JSON.stringify(answer.body), {
      status: answer.status,
      headers: { 'content-type': 'application/json', 'x-request-id': `req-${calls.length}`, ...answer.headers },
    });
  }) as unknown as typeof fetch;
  const client = new PartnerClient({
    baseUrl: 'http://gateway.test/',
    apiKey: 'pk_test_1',
    signingSecret: 's3cret',
    fetch: fetchImpl,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    retry: { baseDelayMs: 10, delayMsMax: 100 },
  });
  return { client, calls, sleeps };
}

const envelope = (statusCode: number, message: string, extra: Record<string, unknown> = {}) => ({
  statusCode,
  message,
  error: 'x',
  requestId: 'req-e',
  ...extra,
});

describe('PartnerClient transport', () => {
  it('retries a rate-limited request after Retry-After-partner, re-signed with a new nonce', async () => {
    const { client, calls, sleeps } = scriptedClient([
      { status: 429, body: envelope(429, 'Too Many Requests'), headers: { 'retry-after-partner': '2' } },
      { status: 200, body: { status: 'ok', time: '2026-01-01T00:00:00.000Z', version: '1' } },
    ]);
    const health = await client.health.get();
    expect(health.status).toBe('ok');
    expect(health.$response.status).toBe(200);
    expect(sleeps).toEqual([2_000]);
    const nonces = calls.map((call) => (call.init.headers as Record<string, string>)['X-Service-Nonce']);
    expect(new Set(nonces).size).toBe(2);
    expect(calls[0].url).toBe('http://gateway.test/v1/health');
  });

  it('sends a mobile-money prompt once on a 503', async () => {
    const { client, calls } = scriptedClient([{ status: 503, body: envelope(503, 'SERVICE_UNAVAILABLE') }]);
    await expect(client.funding.mobileMoneyPush({ phone: '254700000001', amount: '10.00' })).rejects.toMatchObject({
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
    });
    expect(calls).toHaveLength(1);
  });

  it('retries a keyed create on a retry-safe 503 and reports the replay', async () => {
    const order = { orderId: 'o-1' };
    const { client, calls } = scriptedClient([
      { status: 503, body: envelope(503, 'SERVICE_UNAVAILABLE') },
      { status: 202, body: order, headers: { 'idempotent-replayed': 'true' } },
    ]);
    const result = await client.orders.buy({ quoteId: 'q', partnerReference: 'ref-1' });
    expect(result.orderId).toBe('o-1');
    expect(result.$response.replayed).toBe(true);
    expect(calls).toHaveLength(2);
    expect(calls[0].init.body).toBe(calls[1].init.body);
  });

  it('throws typed errors with every field a partner needs', async () => {
    const { client } = scriptedClient([
      {
        status: 429,
        body: envelope(429, 'CONFIRMATION_RESEND_COOLDOWN', { retryAfterSeconds: 120, requestId: 'req-77' }),
      },
      { status: 400, body: envelope(400, 'Validation failed on: side, kesAmount') },
      { status: 401, body: envelope(401, 'An error occurred') },
    ]);
    const cooldown = (await client.confirmations.resend('c-1').catch((error: unknown) => error)) as PartnerApiError;
    expect(cooldown).toBeInstanceOf(PartnerApiError);
    expect(cooldown).toMatchObject({
      status: 429,
      code: 'CONFIRMATION_RESEND_COOLDOWN',
      message: 'CONFIRMATION_RESEND_COOLDOWN',
      requestId: 'req-77',
      retryAfterSeconds: 120,
    });
    await expect(client.quotes.create({ side: 'buy', kesAmount: '1' })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      fields: ['side', 'kesAmount'],
    });
    await expect(client.balances.list()).rejects.toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
  });

  it('encodes path parameters and query values', async () => {
    const { client, calls } = scriptedClient([
      { status: 200, body: [] },
      { status: 200, body: {} },
    ]);
    await client.collections.list({ status: 'open', from: '2026-01-01T13:00+03:00' });
    await client.orders.get('a/b');
    expect(calls[0].url).toBe('http://gateway.test/v1/collections?status=open&from=2026-01-01T13%3A00%2B03%3A00');
    expect(calls[1].url).toBe('http://gateway.test/v1/orders/a%2Fb');
  });
});
