// Proves the HTTP pipeline end to end with fakes at its edges (credential
// store, nonce and rate-limit admission, upstream services), over a Unix socket:
// X-Request-Id on every response; the uniform 401 for every failure; a replay
// refused; 403 outside a credential's scopes; 429 with Retry-After-partner and
// no retryAfterSeconds; RateLimit-* headers on every authenticated answer;
// 404, 400 and 413 envelopes; field-naming validation;
// stores that cannot answer fail closed with 503; upstream refusals pass
// through; unexpected errors never leak; sandbox routes exist only in sandbox;
// the routes registered from the operation table check the body, then the path
// id (the operation's own 404), and validate a query against its schema; every
// answer is counted by route template (never the id), method and status, with
// authentication refusals by reason and partner-limit refusals; a partner's valid
// traceparent is continued into the upstream calls, anything else starts a new trace.
import { UUID_PATTERN } from '@platform/ids';
import { AUTH_FAILURE_RESPONSE_FLOOR_MS } from './middleware/authenticate.middleware';
import { randomBytes } from 'node:crypto';
import { request, Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signedRequestHeaders } from '@platform/crypto';
import { AppError } from '@platform/errors';
import { createLogger } from '@platform/logger';
import { Registry } from '@platform/metrics';
import type { trading } from '@platform/proto';
import { currentTraceparent, startTracing } from '@platform/tracing';
import { apiKeyPattern, generateApiKey, generateSigningSecret } from '../domain/credential-tokens';
import { RefusedAuthentications } from '../domain/refused-authentications';
import { signingKeyOf } from '../domain/request-signature';
import { SCOPES, Scope } from '../domain/scopes';
import { createApp } from './app';
import type { AppDependencies, AuthenticatedCredential } from './dependencies';
import { GatewayMetrics } from './gateway-metrics';

const logger = createLogger('gateway-test');
logger.silent = true;

const partnerId = '6f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11';

function credential(
  scopes: readonly Scope[] = SCOPES,
  status: 'active' | 'revoked' = 'active',
  limited = false,
): AuthenticatedCredential & { signingSecret: string } {
  const signingSecret = generateSigningSecret();
  return {
    apiKey: generateApiKey('sandbox'),
    signingSecret,
    signingKey: signingKeyOf(signingSecret),
    partnerId: limited ? limitedPartnerId : partnerId,
    scopes,
    status,
    rateLimitPerMinute: limited ? 3 : 1_000,
  };
}

const limitedPartnerId = '2a0d3c4e-5f60-4718-8a9b-0c1d2e3f4a5b';
const full = credential();
const readOnly = credential(['read']);
const revoked = credential(SCOPES, 'revoked');
// Two credentials of one partner with a limit of 3 a minute.
const limitedFirst = credential(SCOPES, 'active', true);
const limitedSecond = credential(['read'], 'active', true);

const quote: trading.Quote = {
  quoteId: '0b7e6a3c-1f0e-4c1e-9d59-5a0f7a7b2c11',
  side: 'buy',
  kesAmount: '1000.00',
  usdtAmount: '7.719027',
  rate: '129.5500',
  kesTotalAmount: '1010.00',
  fee: { kesAmount: '10.00', percentBps: 100, flatKesAmount: '0.00', capKesAmount: undefined },
  expiresAt: '2026-11-21T08:00:30.000Z',
  settlementEstimateSeconds: 60,
};

interface Harness {
  deps: AppDependencies;
  admissionStoreDown: boolean;
  admissionCalls: number;
  createQuote: jest.Mock;
  metrics: Registry;
}

/** The wallet registry is exercised by its own integration specs; here every call is unavailable. */
function unavailableWalletRegistry(): AppDependencies['walletRegistry'] {
  const unavailable = async (): Promise<never> => {
    throw new AppError('SERVICE_UNAVAILABLE');
  };
  return {
    registerAdmin: unavailable,
    listAdmins: unavailable,
    removeAdmin: unavailable,
    registerWallet: unavailable,
    confirmWallet: unavailable,
    listWallets: unavailable,
    revokeWallet: unavailable,
    approveWallet: unavailable,
  };
}

interface HarnessOptions {
  refusalsPerMinutePerAddress?: number;
  trustedProxyHops?: number;
  /** The lookup answers without a promise, as the cached one does for a key it knows. */
  credentialsAnsweredAtOnce?: boolean;
}

function harness(mode: 'sandbox' | 'production' = 'sandbox', options: HarnessOptions = {}): Harness {
  const credentials = new Map(
    [full, readOnly, revoked, limitedFirst, limitedSecond].map((item) => [item.apiKey, item]),
  );
  const seen = new Set<string>();
  const counts = new Map<string, number>();
  const state: Harness = {
    admissionStoreDown: false,
    admissionCalls: 0,
    createQuote: jest.fn(async () => quote),
    deps: undefined as unknown as AppDependencies,
    metrics: new Registry(),
  };
  state.deps = {
    logger,
    mode,
    version: '9.9.9',
    apiKeyPattern: apiKeyPattern('sandbox'),
    credentials: options.credentialsAnsweredAtOnce
      ? { find: (apiKey) => credentials.get(apiKey) ?? null }
      : { find: async (apiKey) => credentials.get(apiKey) ?? null },
    refusedAuthentications: new RefusedAuthentications(options.refusalsPerMinutePerAddress ?? 1_000),
    trustedProxyHops: options.trustedProxyHops ?? 0,
    // The script's semantics (domain/rate-limit.ts), in memory: a replay is never counted,
    // a refusal never recorded; the window resets in 42 s.
    admission: {
      admit: async ({ apiKey, nonce, partnerId: id, limitPerMinute: limit }) => {
        state.admissionCalls += 1;
        if (state.admissionStoreDown) throw new AppError('SERVICE_UNAVAILABLE');
        const key = `${apiKey}:${nonce}`;
        if (seen.has(key)) return { nonceFresh: false };
        seen.add(key);
        const counted = counts.get(id) ?? 0;
        const allowed = counted < limit;
        if (allowed) counts.set(id, counted + 1);
        const window = { limit, remaining: Math.max(0, limit - (allowed ? counted + 1 : counted)), resetSeconds: 42 };
        return {
          nonceFresh: true,
          rateLimit: allowed ? { allowed: true, ...window } : { allowed: false, retryAfterSeconds: 42, ...window },
        };
      },
    },
    trading: {
      createQuote: (...args) => state.createQuote(...args),
      setSandboxRate: async (input) => ({
        bid: input.bid,
        ask: input.ask,
        halted: input.halted,
        observedAt: '2026-11-21T08:00:00.000Z',
      }),
    },
    ledger: {
      getBalances: async () => ({ balances: [] }),
      simulateKesCredit: async () => {
        throw new AppError('SERVICE_UNAVAILABLE');
      },
    },
    walletRegistry: unavailableWalletRegistry(),
    notifier: {
      listSandboxOutbox: async () => {
        throw new AppError('SERVICE_UNAVAILABLE');
      },
    },
    upstreamHealth: { status: async () => 'ok' },
    readiness: { ready: async () => true },
    metrics: new GatewayMetrics(state.metrics),
  };
  return state;
}

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: any;
}

let socketPath = '';
let server: Server;

async function serve(state: Harness): Promise<void> {
  if (server) await new Promise((resolve) => server.close(resolve));
  socketPath = join(tmpdir(), `gateway-app-spec-${process.pid}-${randomBytes(4).toString('hex')}.sock`);
  server = createApp(state.deps).listen(socketPath);
  await new Promise((resolve) => server.once('listening', resolve));
}

function send(
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string | Buffer[],
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          parsed = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed });
      });
    });
    req.on('error', reject);
    if (Array.isArray(body)) body.forEach((chunk) => req.write(chunk));
    else if (body !== undefined) req.write(body);
    req.end();
  });
}

function signed(
  method: string,
  path: string,
  body = '',
  who = full,
  extra: Record<string, string> = {},
): Promise<Reply> {
  const headers: Record<string, string> = signedRequestHeaders(who, { method, pathAndQuery: path, body });
  if (body) headers['Content-Type'] = 'application/json';
  return send(method, path, { ...headers, ...extra }, body || undefined);
}

const UNIFORM_401 = (requestId: string) =>
  `{"statusCode":401,"message":"An error occurred","error":"unauthorized","requestId":"${requestId}"}`;

let state: Harness;
beforeEach(async () => {
  state = harness();
  await serve(state);
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('gateway app', () => {
  it('answers a signed GET /v1/health with 200, the request id and JSON', async () => {
    const reply = await signed('GET', '/v1/health');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      status: 'ok',
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      version: '9.9.9',
    });
    expect(reply.headers['x-request-id']).toMatch(UUID_PATTERN);
    expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(reply.headers['x-powered-by']).toBeUndefined();
    expect(reply.headers['cache-control']).toBe('no-store');
    expect(Number(reply.headers['content-length'])).toBe(Buffer.byteLength(reply.text));
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const get = await send('GET', '/healthz');
    const head = await send('HEAD', '/healthz');
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
  });

  it('answers every authentication failure with the identical 401', async () => {
    const now = Date.now();
    const sign = (options: { nowMs?: number; nonce?: string; secret?: string; apiKey?: string } = {}) =>
      signedRequestHeaders(
        { apiKey: options.apiKey ?? full.apiKey, signingSecret: options.secret ?? full.signingSecret },
        { method: 'GET', pathAndQuery: '/v1/health', nowMs: options.nowMs, nonce: options.nonce },
      );
    const without = (name: string) => Object.fromEntries(Object.entries(sign()).filter(([key]) => key !== name));
    const variants: Record<string, string>[] = [
      {},
      without('X-Service-Key'),
      without('X-Service-Signature'),
      sign({ apiKey: generateApiKey('sandbox') }),
      sign({ secret: generateSigningSecret() }),
      sign({ nowMs: now - 300_001 - 1_000 }),
      sign({ nowMs: now + 300_001 + 1_000 }),
      sign({ nonce: 'tooshort' }),
      { ...sign(), 'X-Service-Signature': 'v1=zz' },
      sign({ apiKey: revoked.apiKey, secret: revoked.signingSecret }),
    ];
    for (const headers of variants) {
      const reply = await send('GET', '/v1/health', headers);
      expect(reply.status).toBe(401);
      expect(reply.text).toBe(UNIFORM_401(String(reply.headers['x-request-id'])));
    }
    expect(state.admissionCalls).toBe(0);
  });

  it('holds every refusal to the response floor, so an unknown key answers no faster than a known one', async () => {
    const unknownKey = signedRequestHeaders(
      { apiKey: generateApiKey('sandbox'), signingSecret: full.signingSecret },
      { method: 'GET', pathAndQuery: '/v1/health' },
    );
    const badSignature = signedRequestHeaders(
      { apiKey: full.apiKey, signingSecret: generateSigningSecret() },
      { method: 'GET', pathAndQuery: '/v1/health' },
    );
    for (const headers of [{}, unknownKey, badSignature]) {
      const startedAtMs = performance.now();
      expect((await send('GET', '/v1/health', headers)).status).toBe(401);
      // The floor is measured from inside the server; the client adds transport time on top.
      expect(performance.now() - startedAtMs).toBeGreaterThanOrEqual(AUTH_FAILURE_RESPONSE_FLOOR_MS - 1);
    }
  });

  it('answers 429 without a lookup to an address past its refused authentications, and only to it', async () => {
    state = harness('sandbox', { refusalsPerMinutePerAddress: 3, trustedProxyHops: 1 });
    const lookups = jest.fn(state.deps.credentials.find);
    state.deps.credentials = { find: lookups };
    await serve(state);
    const prober = { 'X-Forwarded-For': '203.0.113.9' };
    const unknownKey = () => ({
      ...signedRequestHeaders(
        { apiKey: generateApiKey('sandbox'), signingSecret: full.signingSecret },
        { method: 'GET', pathAndQuery: '/v1/health' },
      ),
      ...prober,
    });
    for (let attempt = 0; attempt < 3; attempt += 1)
      expect((await send('GET', '/v1/health', unknownKey())).status).toBe(401);
    lookups.mockClear();
    const limited = await send('GET', '/v1/health', unknownKey());
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({
      statusCode: 429,
      message: 'Too Many Requests',
      error: 'Too Many Requests',
      requestId: limited.headers['x-request-id'],
    });
    expect(Number(limited.headers['retry-after-partner'])).toBeGreaterThanOrEqual(59);
    expect(lookups).not.toHaveBeenCalled();
    // Even a valid request from that address waits out the minute.
    expect((await signed('GET', '/v1/health', '', full, prober)).status).toBe(429);
    // Another address, told apart by the hop the proxy appended, is unaffected; the header's client-written part is not believed.
    expect(
      (await signed('GET', '/v1/health', '', full, { 'X-Forwarded-For': '203.0.113.9, 198.51.100.7' })).status,
    ).toBe(200);
  });

  it('counts only refused requests against an address', async () => {
    state = harness('sandbox', { refusalsPerMinutePerAddress: 2 });
    await serve(state);
    for (let request = 0; request < 5; request += 1) expect((await signed('GET', '/v1/health')).status).toBe(200);
    expect((await send('GET', '/v1/health', {})).status).toBe(401);
    expect((await signed('GET', '/v1/health')).status).toBe(200);
  });

  it('ignores X-Forwarded-For when no proxy is trusted', async () => {
    state = harness('sandbox', { refusalsPerMinutePerAddress: 1 });
    await serve(state);
    expect((await send('GET', '/v1/health', { 'X-Forwarded-For': '203.0.113.1' })).status).toBe(401);
    expect((await signed('GET', '/v1/health', '', full, { 'X-Forwarded-For': '203.0.113.2' })).status).toBe(429);
  });

  it('refuses a replayed nonce with the same 401', async () => {
    const headers = signedRequestHeaders(full, { method: 'GET', pathAndQuery: '/v1/health' });
    expect((await send('GET', '/v1/health', headers)).status).toBe(200);
    const replay = await send('GET', '/v1/health', headers);
    expect(replay.status).toBe(401);
    expect(replay.text).toBe(UNIFORM_401(String(replay.headers['x-request-id'])));
  });

  it('refuses a tampered query or body', async () => {
    const headers = signedRequestHeaders(full, { method: 'GET', pathAndQuery: '/v1/health?a=1' });
    expect((await send('GET', '/v1/health?a=2', headers)).status).toBe(401);
    const body = '{"side":"buy","kesAmount":"1000.00"}';
    const quoteHeaders = {
      ...signedRequestHeaders(full, { method: 'POST', pathAndQuery: '/v1/quotes', body }),
      'Content-Type': 'application/json',
    };
    expect((await send('POST', '/v1/quotes', quoteHeaders, body.replace('1000', '9000'))).status).toBe(401);
  });

  it('fails closed with 503 when the nonce and rate-limit store cannot answer', async () => {
    state.admissionStoreDown = true;
    const reply = await signed('GET', '/v1/health');
    expect(reply.status).toBe(503);
    expect(reply.body).toEqual({
      statusCode: 503,
      message: 'SERVICE_UNAVAILABLE',
      error: 'Service Unavailable',
      requestId: reply.headers['x-request-id'],
    });
  });

  it('authenticates the same with a lookup that answers at once, as the cached one does for a key it knows', async () => {
    state = harness('sandbox', { credentialsAnsweredAtOnce: true });
    await serve(state);
    const headers = signedRequestHeaders(full, { method: 'GET', pathAndQuery: '/v1/health' });
    expect((await send('GET', '/v1/health', headers)).status).toBe(200);
    const replay = await send('GET', '/v1/health', headers);
    expect(replay.text).toBe(UNIFORM_401(String(replay.headers['x-request-id'])));
    const admitted = state.admissionCalls;
    for (const refused of [
      signedRequestHeaders(
        { apiKey: full.apiKey, signingSecret: generateSigningSecret() },
        { method: 'GET', pathAndQuery: '/v1/health' },
      ),
      signedRequestHeaders(
        { apiKey: generateApiKey('sandbox'), signingSecret: full.signingSecret },
        { method: 'GET', pathAndQuery: '/v1/health' },
      ),
    ]) {
      const reply = await send('GET', '/v1/health', refused);
      expect(reply.text).toBe(UNIFORM_401(String(reply.headers['x-request-id'])));
    }
    expect(state.admissionCalls).toBe(admitted);
    const body = '{"side":"buy","kesAmount":"1000.00"}';
    expect((await signed('POST', '/v1/quotes', body)).status).toBe(201);
    state.admissionStoreDown = true;
    expect((await signed('GET', '/v1/health')).status).toBe(503);
  });

  it('answers 403 INSUFFICIENT_SCOPE outside the credential scopes, before reading the body', async () => {
    const reply = await signed('POST', '/v1/quotes', '{not json', readOnly);
    expect(reply.status).toBe(403);
    expect(reply.body).toEqual({
      statusCode: 403,
      message: 'INSUFFICIENT_SCOPE',
      error: 'Forbidden',
      requestId: reply.headers['x-request-id'],
    });
    expect((await signed('GET', '/v1/health', '', readOnly)).status).toBe(200);
  });

  it('answers 429 past the partner limit, across its credentials, with Retry-After-partner and the exact body', async () => {
    for (let index = 0; index < 3; index += 1)
      expect((await signed('GET', '/v1/health', '', limitedFirst)).status).toBe(200);
    expect((await signed('GET', '/v1/health')).status).toBe(200);
    const reply = await signed('GET', '/v1/health', '', limitedSecond);
    expect(reply.status).toBe(429);
    expect(reply.headers['retry-after-partner']).toBe('42');
    expect(reply.headers['retry-after']).toBe('42');
    expect(reply.text).toBe(
      `{"statusCode":429,"message":"Too Many Requests","error":"Too Many Requests","requestId":"${reply.headers['x-request-id']}"}`,
    );
    expect(reply.headers['ratelimit-limit']).toBe('3');
    expect(reply.headers['ratelimit-remaining']).toBe('0');
    expect(reply.headers['ratelimit-reset']).toBe('42');
  });

  it('tells every authenticated answer where the partner stands: RateLimit-Limit, -Remaining and -Reset', async () => {
    const ok = await signed('GET', '/v1/health');
    expect(ok.status).toBe(200);
    const remaining = Number(ok.headers['ratelimit-remaining']);
    expect(ok.headers['ratelimit-limit']).toBe('1000');
    expect(ok.headers['ratelimit-reset']).toBe('42');
    // A refusal after admission (scope, 404, validation) carries them too, one request further on.
    const forbidden = await signed('POST', '/v1/quotes', '{}', readOnly);
    expect(forbidden.status).toBe(403);
    expect(Number(forbidden.headers['ratelimit-remaining'])).toBe(remaining - 1);
    const notFound = await signed('GET', '/v1/nope');
    expect(notFound.status).toBe(404);
    expect(Number(notFound.headers['ratelimit-remaining'])).toBe(remaining - 2);
    // Before admission nothing is known of the partner: a 401 carries none.
    const unauthorized = await send('GET', '/v1/health');
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers['ratelimit-limit']).toBeUndefined();
  });

  it('answers 404 envelopes for unknown paths, wrong methods and trailing slashes', async () => {
    for (const reply of [
      await signed('GET', '/v1/nope'),
      await signed('DELETE', '/v1/health'),
      await signed('GET', '/v1/health/'),
      await signed('GET', '/v1/HEALTH'),
      await send('GET', '/nope'),
      await send('POST', '/healthz'),
    ]) {
      expect(reply.status).toBe(404);
      expect(reply.body).toEqual({
        statusCode: 404,
        message: 'NOT_FOUND',
        error: 'Not Found',
        requestId: reply.headers['x-request-id'],
      });
    }
  });

  it('serves HEAD of a /v1 operation by its GET, without a body', async () => {
    const get = await signed('GET', '/v1/health');
    const head = await signed('HEAD', '/v1/health');
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers['content-type']).toBe(get.headers['content-type']);
  });

  it('matches a path as sent: an id is decoded, a literal segment is not, a broken escape is 400', async () => {
    const malformedEscape = await signed('GET', '/v1/orders/%E0%A4%A');
    expect({ status: malformedEscape.status, message: malformedEscape.body.message }).toEqual({
      status: 400,
      message: 'Validation failed on: path',
    });
    expect((await signed('GET', '/v1/%68ealth')).body.message).toBe('NOT_FOUND');
    expect((await signed('GET', '/v1/orders/%4E%4F')).body.message).toBe('ORDER_NOT_FOUND');
    // A literal path of another method falls through to the parameterised one of this method.
    expect((await signed('GET', '/v1/orders/buy')).body.message).toBe('ORDER_NOT_FOUND');
  });

  it('authenticates before answering 404 under /v1', async () => {
    expect((await send('GET', '/v1/nope')).status).toBe(401);
  });

  it('keeps a valid X-Request-Id and replaces an invalid one', async () => {
    expect((await send('GET', '/nope', { 'X-Request-Id': 'partner-req:1.2_3' })).headers['x-request-id']).toBe(
      'partner-req:1.2_3',
    );
    const replaced = await send('GET', '/nope', { 'X-Request-Id': 'bad id with spaces' });
    expect(replaced.headers['x-request-id']).toMatch(UUID_PATTERN);
    expect(replaced.body.requestId).toBe(replaced.headers['x-request-id']);
  });

  it('answers 413 for a body over 64 KiB, declared or streamed', async () => {
    const big = 'x'.repeat(65 * 1024);
    const declared = await send(
      'POST',
      '/v1/quotes',
      { 'Content-Type': 'application/json', 'Content-Length': String(big.length) },
      big,
    );
    expect(declared.status).toBe(413);
    expect(declared.body).toEqual({
      statusCode: 413,
      message: 'PAYLOAD_TOO_LARGE',
      error: 'Payload Too Large',
      requestId: declared.headers['x-request-id'],
    });
    const streamed = await send(
      'POST',
      '/v1/quotes',
      { 'Content-Type': 'application/json' },
      Array.from({ length: 70 }, () => Buffer.alloc(1024, 0x78)),
    );
    expect(streamed.status).toBe(413);
  });

  it('accepts a body of exactly 64 KiB', async () => {
    const frame = JSON.stringify({ side: 'buy', kesAmount: '1000.00', pad: '' });
    const body = JSON.stringify({ side: 'buy', kesAmount: '1000.00', pad: 'x'.repeat(65_536 - frame.length) });
    expect(Buffer.byteLength(body)).toBe(65_536);
    const reply = await signed('POST', '/v1/quotes', body);
    expect(reply.status).toBe(400);
    expect(reply.body.message).toBe('Validation failed on: pad');
  });

  it('answers 400 body for malformed JSON, a wrong content type or a non-object', async () => {
    expect((await signed('POST', '/v1/quotes', '{"side":')).body.message).toBe('Validation failed on: body');
    expect((await signed('POST', '/v1/quotes', '["buy"]')).body.message).toBe('Validation failed on: body');
    const wrongType = await signed('POST', '/v1/quotes', '{"side":"buy","kesAmount":"1.00"}', full, {
      'Content-Type': 'text/plain',
    });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body).toEqual({
      statusCode: 400,
      message: 'Validation failed on: body',
      error: 'Bad Request',
      requestId: wrongType.headers['x-request-id'],
    });
    expect((await signed('POST', '/v1/quotes')).body.message).toBe('Validation failed on: body');
  });

  it('names every offending quote field', async () => {
    const cases: Array<[unknown, string]> = [
      [{ side: 'hold', kesAmount: 1000 }, 'side, kesAmount'],
      [{ side: 'buy' }, 'kesAmount, usdtAmount'],
      [{ side: 'buy', kesAmount: '1.00', usdtAmount: '1.000000' }, 'kesAmount, usdtAmount'],
      [{ side: 'buy', kesAmount: '1.001' }, 'kesAmount'],
      [{ side: 'sell', usdtAmount: '0' }, 'usdtAmount'],
      [{ side: 'sell', usdtAmount: '1e3' }, 'usdtAmount'],
      [{ side: 'sell', usdtAmount: '-1.0' }, 'usdtAmount'],
    ];
    for (const [body, fields] of cases) {
      const reply = await signed('POST', '/v1/quotes', JSON.stringify(body));
      expect({ body, status: reply.status, message: reply.body.message }).toEqual({
        body,
        status: 400,
        message: `Validation failed on: ${fields}`,
      });
    }
    expect(state.createQuote).not.toHaveBeenCalled();
  });

  it('creates a quote through trading and answers 201 with the spec shape', async () => {
    const reply = await signed('POST', '/v1/quotes', '{"side":"buy","kesAmount":"1000"}');
    expect(reply.status).toBe(201);
    expect(state.createQuote).toHaveBeenCalledWith({
      partnerId,
      side: 'buy',
      kesAmount: '1000.00',
      usdtAmount: undefined,
    });
    expect(reply.body).toEqual({
      quoteId: quote.quoteId,
      side: 'buy',
      kesAmount: '1000.00',
      usdtAmount: '7.719027',
      rate: '129.5500',
      kesTotalAmount: '1010.00',
      fee: { kesAmount: '10.00', currency: 'KES', percentBps: 100, flatKesAmount: '0.00', capKesAmount: null },
      expiresAt: '2026-11-21T08:00:30.000Z',
      settlementEstimateSeconds: 60,
    });
  });

  it("continues a partner's valid traceparent into the upstream call, and starts a new trace otherwise", async () => {
    startTracing({ service: 'gateway-test' });
    const seen: Array<string | null> = [];
    state.createQuote.mockImplementation(async () => {
      seen.push(currentTraceparent());
      return quote;
    });
    const partnerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const body = '{"side":"buy","kesAmount":"1000"}';
    expect(
      (await signed('POST', '/v1/quotes', body, full, { traceparent: `00-${partnerTrace}-00f067aa0ba902b7-01` }))
        .status,
    ).toBe(201);
    expect(
      (await signed('POST', '/v1/quotes', body, full, { traceparent: `00-${partnerTrace}-00f067aa0ba902b7` })).status,
    ).toBe(201);
    expect(seen[0]).toMatch(new RegExp(`^00-${partnerTrace}-[0-9a-f]{16}-0[01]$`));
    expect(seen[0]).not.toContain('00f067aa0ba902b7');
    expect(seen[1]).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
    expect(seen[1]).not.toContain(partnerTrace);
  });

  it('passes an upstream refusal through and hides an unexpected error', async () => {
    state.createQuote.mockRejectedValueOnce(new AppError('RATE_UNAVAILABLE'));
    const refused = await signed('POST', '/v1/quotes', '{"side":"buy","kesAmount":"10.00"}');
    expect(refused.body).toEqual({
      statusCode: 503,
      message: 'RATE_UNAVAILABLE',
      error: 'Service Unavailable',
      requestId: refused.headers['x-request-id'],
    });
    state.createQuote.mockRejectedValueOnce(new Error('secret internals'));
    const broken = await signed('POST', '/v1/quotes', '{"side":"buy","kesAmount":"10.00"}');
    expect(broken.status).toBe(500);
    expect(broken.body).toEqual({
      statusCode: 500,
      message: 'INTERNAL_ERROR',
      error: 'Internal Server Error',
      requestId: broken.headers['x-request-id'],
    });
    expect(broken.text).not.toContain('secret');
  });

  it('refuses to pass on an upstream value that breaks the wire conventions', async () => {
    state.createQuote.mockResolvedValueOnce({ ...quote, kesAmount: '1000' });
    expect((await signed('POST', '/v1/quotes', '{"side":"buy","kesAmount":"10.00"}')).status).toBe(500);
  });

  it('validates the sandbox rate helper', async () => {
    expect((await signed('POST', '/v1/sandbox/rates', '{"bid":"130.1","ask":"129"}')).body.message).toBe(
      'Validation failed on: ask',
    );
    expect((await signed('POST', '/v1/sandbox/rates', '{"bid":"1.12345","ask":"x"}')).body.message).toBe(
      'Validation failed on: bid, ask',
    );
    const reply = await signed('POST', '/v1/sandbox/rates', '{"bid":"129.1","ask":"130","halted":true}');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      bid: '129.1000',
      ask: '130.0000',
      halted: true,
      observedAt: '2026-11-21T08:00:00.000Z',
    });
  });

  it("checks the body, then the path id: a malformed id answers the operation's own 404", async () => {
    const malformed = '/v1/confirmations/NOT-A-UUID';
    expect((await signed('POST', malformed, '{"code":"12"}')).body.message).toBe('Validation failed on: code');
    const notFound = await signed('POST', malformed, '{"code":"123456"}');
    expect({ status: notFound.status, message: notFound.body.message }).toEqual({
      status: 404,
      message: 'CONFIRMATION_NOT_FOUND',
    });
    expect((await signed('GET', '/v1/orders/6F1C1A52-6D0E-4F51-9B6C-2F0D2B8A1E11')).body.message).toBe(
      'ORDER_NOT_FOUND',
    );
    expect((await signed('POST', '/v1/sandbox/mobile-money-pushes/x/approve')).body.message).toBe(
      'MOBILE_MONEY_PUSH_NOT_FOUND',
    );
  });

  it("validates a query against its operation's schema, naming unknown and repeated parameters first", async () => {
    const reply = await signed('GET', '/v1/collections?limit=0&page=2&status=open&status=expired');
    expect({ status: reply.status, message: reply.body.message }).toEqual({
      status: 400,
      message: 'Validation failed on: page, status, limit',
    });
  });

  it('hides the sandbox helpers in production mode', async () => {
    state = harness('production');
    await serve(state);
    const reply = await signed('POST', '/v1/sandbox/rates', '{"bid":"129.1","ask":"130"}');
    expect(reply.status).toBe(404);
  });

  it('answers /healthz without authentication, 503 when a store is down', async () => {
    expect((await send('GET', '/healthz')).body).toEqual({ status: 'ok' });
    state.deps.readiness = { ready: async () => false };
    await serve(state);
    const down = await send('GET', '/healthz');
    expect(down.status).toBe(503);
    expect(down.body.message).toBe('SERVICE_UNAVAILABLE');
  });

  it('counts every answer by route template, method and status, refusals by reason and limit, and never labels an id', async () => {
    const orderId = '0b7e6a3c-1f0e-4c1e-9d59-5a0f7a7b2c11';
    expect((await signed('GET', `/v1/orders/${orderId}`)).status).toBe(500);
    expect((await signed('GET', '/v1/orders/not-an-id')).status).toBe(404);
    expect((await send('GET', '/nope')).status).toBe(404);
    expect((await send('GET', '/v1/health')).status).toBe(401);
    for (let index = 0; index < 3; index += 1) await signed('GET', '/v1/health', '', limitedFirst);
    expect((await signed('GET', '/v1/health', '', limitedFirst)).status).toBe(429);
    const text = await state.metrics.metrics();
    expect(text).toContain('gateway_http_requests_total{route="/v1/orders/{id}",method="GET",status="500"} 1');
    expect(text).toContain('gateway_http_requests_total{route="/v1/orders/{id}",method="GET",status="404"} 1');
    expect(text).toContain('gateway_http_requests_total{route="unmatched",method="GET",status="404"} 1');
    expect(text).toContain('gateway_http_requests_total{route="/v1/health",method="GET",status="401"} 1');
    expect(text).toContain('gateway_http_requests_total{route="/v1/health",method="GET",status="200"} 3');
    expect(text).toContain('gateway_http_requests_total{route="/v1/health",method="GET",status="429"} 1');
    expect(text).toContain('gateway_http_request_duration_seconds_count{route="/v1/orders/{id}",method="GET"} 2');
    expect(text).toContain('gateway_authentication_refusals_total{reason="missing_header"} 1');
    expect(text).toContain('gateway_rate_limit_refusals_total{limit="partner"} 1');
    expect(text).not.toContain(orderId);
    expect(text).not.toContain(limitedFirst.apiKey);
  });

  it('counts a refusal by the per-address limit apart from the partner limit', async () => {
    state = harness('sandbox', { refusalsPerMinutePerAddress: 1 });
    await serve(state);
    expect((await send('GET', '/v1/health')).status).toBe(401);
    expect((await send('GET', '/v1/health')).status).toBe(429);
    const text = await state.metrics.metrics();
    expect(text).toContain('gateway_rate_limit_refusals_total{limit="address"} 1');
    expect(text).toContain('gateway_rate_limit_refusals_total{limit="partner"} 0');
    expect(text).toContain('gateway_authentication_refusals_total{reason="missing_header"} 1');
  });
});
