// Proves POST /v1/quotes end to end, through the gateway, against the real test
// stack: the four quote shapes priced exactly (expected strings worked by hand
// below, never computed by the code under test), the fee cap, the row persisted
// unconsumed with its expiry, every 400 naming its fields, 422
// FEE_EXCEEDS_PROCEEDS at and below its boundary, 503 FEE_PRICING_INVALID for a
// corrupt or missing profile row (and a changed one applied to the next quote at
// once, though trading prices from the schedule it last read and lets the insert check
// it), and 503 RATE_UNAVAILABLE once a halted rate
// outlives the staleness limit. Quotes asked at once (which the gateway sends to
// trading in shared CreateQuotes calls) are each priced and refused on their own,
// and two partners' quotes sharing batches each get their own partner's fee
// schedule and pinned rate (a batch reads all its partners' schedules and rates at once).
//
// The partner is this file's own: fee 100 bps + 10.00 flat, capped at 500.00,
// with its sandbox rate pinned at bid 128.1234 / ask 130.9876. Pinned rates have
// 4 decimals already, so buys quote at 130.9876 and sells at 128.1234.
import { randomUUID } from 'node:crypto';
import { UUID_PATTERN } from '@platform/ids';
import {
  createTestPartner,
  HttpResult,
  loadTestStack,
  PartnerHttpClient,
  TestPartner,
  TestStack,
} from '@platform/testing';
import { untilShared } from './gateway-batches';

/** Rounds of concurrent quotes tried before the spec gives up seeing them share a batch. */
const SHARED_ROUNDS_MAX = 10;
const QUOTES_PER_MINUTE_MAX = 1_000;

interface PgClient {
  connect(): Promise<void>;
  query<R = Record<string, unknown>>(text: string, values?: unknown[]): Promise<{ rows: R[]; rowCount: number | null }>;
  end(): Promise<void>;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Client } = require('pg') as { Client: new (config: { connectionString: string }) => PgClient };

const BID = '128.1234';
const ASK = '130.9876';
const QUOTE_TTL_MS_DEFAULT = 30_000;
const RATE_STALENESS_LIMIT_MS_DEFAULT = 60_000;
/** Slack on clock comparisons between this process and the services (same machine). */
const CLOCK_SLACK_MS = 50;
/** Margin past the staleness limit before the rate must read as stale. */
const STALENESS_MARGIN_MS = 750;

/** Fields of the stack file beyond the typed ones (scripts/lib/services.mjs stackDescription). */
type StackFile = TestStack & { sandboxTimeScale?: number; extraEnv?: Record<string, string> };

let stack: StackFile;
let partner: TestPartner;
let client: PartnerHttpClient;
let db: PgClient;

function quoteLifetimeMs(): number {
  const ttlMs = Number(stack.extraEnv?.QUOTE_TTL_MS ?? QUOTE_TTL_MS_DEFAULT);
  return Math.max(1, Math.round(ttlMs * (stack.sandboxTimeScale ?? 1)));
}

function stalenessLimitMs(): number {
  return Number(stack.extraEnv?.RATE_STALENESS_LIMIT_MS ?? RATE_STALENESS_LIMIT_MS_DEFAULT);
}

async function pinRate(halted?: boolean): Promise<HttpResult> {
  const body = halted === undefined ? { bid: BID, ask: ASK } : { bid: BID, ask: ASK, halted };
  const result = await client.post('/v1/sandbox/rates', body);
  expect(result.status).toBe(200);
  expect(result.body).toMatchObject({ bid: BID, ask: ASK, halted: halted ?? false });
  return result;
}

/** Posts a quote and records when the round trip started and ended. */
async function quote(body: unknown): Promise<HttpResult & { startedMs: number; finishedMs: number }> {
  const startedMs = Date.now();
  const result = await client.post('/v1/quotes', body);
  return { ...result, startedMs, finishedMs: Date.now() };
}

function expectRefusal(result: HttpResult, statusCode: number, error: string, message: string): void {
  expect({ status: result.status, body: result.body }).toEqual({
    status: statusCode,
    body: expect.objectContaining({ statusCode, error, message, requestId: expect.any(String) }),
  });
}

beforeAll(async () => {
  stack = loadTestStack() as StackFile;
  partner = await createTestPartner({
    // Room for the shared-batch spec's rounds of concurrent quotes (up to SHARED_ROUNDS_MAX × 16).
    rateLimitPerMinute: QUOTES_PER_MINUTE_MAX,
    extraArgs: ['--fee-bps', '100', '--fee-flat-kes', '10.00', '--fee-cap-kes', '500.00'],
  });
  client = new PartnerHttpClient(partner);
  db = new Client({ connectionString: stack.databases.trading });
  await db.connect();
  await pinRate();
});

afterAll(async () => {
  await db?.end();
});

const FEE_SCHEDULE = { currency: 'KES', percentBps: 100, flatKesAmount: '10.00', capKesAmount: '500.00' };

describe('POST /v1/quotes prices exactly', () => {
  it.each([
    {
      name: 'buy by KES: usdt = floor6(1000.00 / 130.9876) = floor6(7.6343104…)',
      request: { side: 'buy', kesAmount: '1000.00' },
      // fee = ceil2(1000.00 × 0.01) + 10.00 = 20.00; total = 1000.00 + 20.00
      expected: {
        side: 'buy',
        kesAmount: '1000.00',
        usdtAmount: '7.634310',
        rate: ASK,
        kesTotalAmount: '1020.00',
        feeKes: '20.00',
      },
    },
    {
      name: 'buy by USDT: kes = ceil2(10.000001 × 130.9876) = ceil2(1309.8761309876)',
      request: { side: 'buy', usdtAmount: '10.000001' },
      // fee = ceil2(13.0988) + 10.00 = 13.10 + 10.00 = 23.10; total = 1309.88 + 23.10
      expected: {
        side: 'buy',
        kesAmount: '1309.88',
        usdtAmount: '10.000001',
        rate: ASK,
        kesTotalAmount: '1332.98',
        feeKes: '23.10',
      },
    },
    {
      name: 'sell by USDT: kes = floor2(10.123456 × 128.1234) = floor2(1297.0516024704)',
      request: { side: 'sell', usdtAmount: '10.123456' },
      // fee = ceil2(12.9705) + 10.00 = 12.98 + 10.00 = 22.98; total = 1297.05 − 22.98
      expected: {
        side: 'sell',
        kesAmount: '1297.05',
        usdtAmount: '10.123456',
        rate: BID,
        kesTotalAmount: '1274.07',
        feeKes: '22.98',
      },
    },
    {
      name: 'sell by KES: usdt = ceil6(2500.55 / 128.1234) = ceil6(19.5167315…)',
      request: { side: 'sell', kesAmount: '2500.55' },
      // fee = ceil2(25.0055) + 10.00 = 25.01 + 10.00 = 35.01; total = 2500.55 − 35.01
      expected: {
        side: 'sell',
        kesAmount: '2500.55',
        usdtAmount: '19.516732',
        rate: BID,
        kesTotalAmount: '2465.54',
        feeKes: '35.01',
      },
    },
    {
      name: 'buy by KES above the cap: fee = min(500.00, 600.00 + 10.00); usdt = floor6(458.0586252…)',
      request: { side: 'buy', kesAmount: '60000.00' },
      expected: {
        side: 'buy',
        kesAmount: '60000.00',
        usdtAmount: '458.058625',
        rate: ASK,
        kesTotalAmount: '60500.00',
        feeKes: '500.00',
      },
    },
    {
      name: 'sell by KES one cent above the fee: fee = ceil2(0.1012) + 10.00 = 10.11; usdt = ceil6(0.0789863…)',
      request: { side: 'sell', kesAmount: '10.12' },
      expected: {
        side: 'sell',
        kesAmount: '10.12',
        usdtAmount: '0.078987',
        rate: BID,
        kesTotalAmount: '0.01',
        feeKes: '10.11',
      },
    },
  ])('$name', async ({ request, expected }) => {
    const result = await quote(request);
    expect(result.status).toBe(201);
    const { feeKes, ...amounts } = expected;
    expect(result.body).toEqual({
      quoteId: expect.stringMatching(UUID_PATTERN),
      ...amounts,
      fee: { kesAmount: feeKes, ...FEE_SCHEDULE },
      expiresAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      settlementEstimateSeconds: expect.any(Number),
    });
    const expiresAtMs = Date.parse(result.body.expiresAt);
    expect(expiresAtMs).toBeGreaterThan(result.finishedMs);
    expect(expiresAtMs).toBeGreaterThanOrEqual(result.startedMs + quoteLifetimeMs() - CLOCK_SLACK_MS);
    expect(expiresAtMs).toBeLessThanOrEqual(result.finishedMs + quoteLifetimeMs() + CLOCK_SLACK_MS);
  });

  it('persists the quote as issued, unconsumed, with its expiry', async () => {
    const result = await quote({ side: 'sell', usdtAmount: '10.123456' });
    expect(result.status).toBe(201);
    const { rows } = await db.query(
      `SELECT partner_id, side, kes_amount, usdt_amount, rate, fee_kes, kes_total_amount, consumed_at, expires_at
         FROM quotes WHERE quote_id = $1`,
      [result.body.quoteId],
    );
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    expect({ ...row, expires_at: (row.expires_at as Date).toISOString() }).toEqual({
      partner_id: partner.partnerId,
      side: 'sell',
      kes_amount: '1297.05',
      usdt_amount: '10.123456',
      rate: BID,
      fee_kes: '22.98',
      kes_total_amount: '1274.07',
      consumed_at: null,
      expires_at: result.body.expiresAt,
    });
  });
});

describe('POST /v1/quotes refuses a malformed request with 400 naming the fields', () => {
  it.each([
    ['both amounts', { side: 'buy', kesAmount: '1000.00', usdtAmount: '1.000000' }, 'kesAmount, usdtAmount'],
    ['neither amount', { side: 'buy' }, 'kesAmount, usdtAmount'],
    ['3 decimals of KES', { side: 'buy', kesAmount: '1000.001' }, 'kesAmount'],
    ['7 decimals of USDT', { side: 'sell', usdtAmount: '1.1234567' }, 'usdtAmount'],
    ['a JSON number', { side: 'buy', kesAmount: 1000 }, 'kesAmount'],
    ['an exponent', { side: 'buy', kesAmount: '1e3' }, 'kesAmount'],
    ['a negative amount', { side: 'buy', kesAmount: '-1.00' }, 'kesAmount'],
    ['zero KES', { side: 'buy', kesAmount: '0.00' }, 'kesAmount'],
    ['zero USDT', { side: 'sell', usdtAmount: '0.000000' }, 'usdtAmount'],
    ['a bad side', { side: 'hold', kesAmount: '1000.00' }, 'side'],
    // Priced by the trading service: 0.000001 × 128.1234 = 0.0001281234, floor2 = 0.00.
    ['an amount too small to price', { side: 'sell', usdtAmount: '0.000001' }, 'usdtAmount'],
    // Above the per-quote bound of 1e12 KES.
    ['an amount above the per-quote maximum', { side: 'buy', kesAmount: '1000000000000.01' }, 'kesAmount'],
  ])('%s', async (_name, body, fields) => {
    expectRefusal(await quote(body), 400, 'Bad Request', `Validation failed on: ${fields}`);
  });
});

describe('POST /v1/quotes refuses a sell whose fee swallows the proceeds', () => {
  it.each([
    // fee = ceil2(0.1011) + 10.00 = 10.11: equal to the principal
    ['fee equal to the principal', { side: 'sell', kesAmount: '10.11' }],
    // fee = ceil2(0.10) + 10.00 = 10.10 > 10.00
    ['fee above the principal', { side: 'sell', kesAmount: '10.00' }],
    // 0.000079 USDT is worth floor2(0.0101217486) = 0.01 KES; fee 10.01
    ['a sell by USDT worth one cent', { side: 'sell', usdtAmount: '0.000079' }],
  ])('%s: 422 FEE_EXCEEDS_PROCEEDS', async (_name, body) => {
    expectRefusal(await quote(body), 422, 'Unprocessable Entity', 'FEE_EXCEEDS_PROCEEDS');
  });

  it('still prices a buy of the same size (the fee is paid on top)', async () => {
    const result = await quote({ side: 'buy', kesAmount: '10.00' });
    expect(result.status).toBe(201);
    expect(result.body.kesTotalAmount).toBe('20.10');
  });
});

describe('POST /v1/quotes asked at once', () => {
  it('prices each exactly and refuses each on its own, in shared batches', async () => {
    // Quotes are asked together until the gateway's grpc_client_batch_items shows a
    // CreateQuotes batch of more than one (gateway-batches.ts).
    const asked = 4;
    const quoteIds = new Set<string>();
    const askTogether = async () => {
      const results = await Promise.all(
        Array.from({ length: asked }, () => [
          quote({ side: 'buy', kesAmount: '1000.00' }),
          quote({ side: 'sell', usdtAmount: '0.000001' }),
          quote({ side: 'sell', kesAmount: '10.00' }),
          quote({ side: 'sell', usdtAmount: '10.123456' }),
        ]).flat(),
      );
      for (let set = 0; set < asked; set += 1) {
        const [buy, tooSmall, feeTooHigh, sell] = results.slice(set * 4, set * 4 + 4);
        expect(buy.status).toBe(201);
        expect(buy.body).toMatchObject({ usdtAmount: '7.634310', rate: ASK, kesTotalAmount: '1020.00' });
        expectRefusal(tooSmall, 400, 'Bad Request', 'Validation failed on: usdtAmount');
        expectRefusal(feeTooHigh, 422, 'Unprocessable Entity', 'FEE_EXCEEDS_PROCEEDS');
        expect(sell.status).toBe(201);
        expect(sell.body).toMatchObject({ kesAmount: '1297.05', rate: BID, kesTotalAmount: '1274.07' });
        for (const priced of [buy, sell]) {
          quoteIds.add(priced.body.quoteId);
          const expiresAtMs = Date.parse(priced.body.expiresAt);
          expect(expiresAtMs).toBeGreaterThanOrEqual(priced.startedMs + quoteLifetimeMs() - CLOCK_SLACK_MS);
          expect(expiresAtMs).toBeLessThanOrEqual(priced.finishedMs + quoteLifetimeMs() + CLOCK_SLACK_MS);
        }
      }
    };
    await untilShared('CreateQuotes', SHARED_ROUNDS_MAX, askTogether);
    const { rows } = await db.query<{ count: number }>(
      'SELECT count(*)::int AS count FROM quotes WHERE quote_id = ANY($1::uuid[]) AND partner_id = $2',
      [[...quoteIds], partner.partnerId],
    );
    expect(quoteIds.size % (asked * 2)).toBe(0);
    expect(rows[0]!.count).toBe(quoteIds.size);
  });
});

describe('POST /v1/quotes of two partners asked at once', () => {
  it("prices each partner's quotes with its own fee schedule and pinned rate, in shared batches", async () => {
    // The other partner: no percentage, 1.00 flat, no cap, pinned at 120.0000 / 121.0000. A buy of
    // 1000.00 KES: usdt = floor6(1000 / 121) = 8.264462 (8.2644628…), fee 1.00, total 1001.00.
    const other = await createTestPartner({
      rateLimitPerMinute: QUOTES_PER_MINUTE_MAX,
      extraArgs: ['--fee-bps', '0', '--fee-flat-kes', '1.00', '--fee-cap-kes', 'none'],
    });
    const otherClient = new PartnerHttpClient(other);
    expect((await otherClient.post('/v1/sandbox/rates', { bid: '120.0000', ask: '121.0000' })).status).toBe(200);
    const askTogether = async () => {
      const results = await Promise.all(
        Array.from({ length: 4 }, () => [
          client.post('/v1/quotes', { side: 'buy', kesAmount: '1000.00' }),
          otherClient.post('/v1/quotes', { side: 'buy', kesAmount: '1000.00' }),
        ]).flat(),
      );
      results.forEach((result, index) => {
        expect(result.status).toBe(201);
        expect(result.body).toMatchObject(
          index % 2 === 0
            ? {
                usdtAmount: '7.634310',
                rate: ASK,
                kesTotalAmount: '1020.00',
                fee: { kesAmount: '20.00', ...FEE_SCHEDULE },
              }
            : {
                usdtAmount: '8.264462',
                rate: '121.0000',
                kesTotalAmount: '1001.00',
                fee: { kesAmount: '1.00', percentBps: 0, flatKesAmount: '1.00', capKesAmount: null },
              },
        );
      });
    };
    await untilShared('CreateQuotes', SHARED_ROUNDS_MAX, askTogether);
  });
});

// These tests change this partner's stored state; each puts it back before it ends.
describe('POST /v1/quotes answers 503 when the service cannot price', () => {
  it.each([
    ['a flat fee with 3 decimals', "fee_flat_kes = '1.234'"],
    ['basis points above 10000', 'fee_bps = 20000'],
    ['a cap below the flat fee', "fee_cap_kes = '5.00'"],
    ['a cap that is not a number', "fee_cap_kes = 'none'"],
  ])('FEE_PRICING_INVALID for a stored profile with %s', async (_name, corruption) => {
    await db.query(`UPDATE partner_profiles SET ${corruption} WHERE partner_id = $1`, [partner.partnerId]);
    try {
      expectRefusal(
        await quote({ side: 'buy', kesAmount: '1000.00' }),
        503,
        'Service Unavailable',
        'FEE_PRICING_INVALID',
      );
    } finally {
      await db.query(
        "UPDATE partner_profiles SET fee_bps = 100, fee_flat_kes = '10.00', fee_cap_kes = '500.00' WHERE partner_id = $1",
        [partner.partnerId],
      );
    }
    expect((await quote({ side: 'buy', kesAmount: '1000.00' })).status).toBe(201);
  });

  it('prices the next quote with a fee schedule changed since the last, at once', async () => {
    // Quotes before the change let trading know the schedule (it then stores a quote only if the
    // schedule is still the stored one): the first quote after it is priced with the new one.
    for (let asked = 0; asked < 3; asked += 1)
      expect((await quote({ side: 'buy', kesAmount: '1000.00' })).status).toBe(201);
    await db.query("UPDATE partner_profiles SET fee_flat_kes = '20.00' WHERE partner_id = $1", [partner.partnerId]);
    try {
      const changed = await quote({ side: 'buy', kesAmount: '1000.00' });
      expect(changed.status).toBe(201);
      expect(changed.body).toMatchObject({
        kesTotalAmount: '1030.00',
        fee: { kesAmount: '30.00', percentBps: 100, flatKesAmount: '20.00', capKesAmount: '500.00' },
      });
      const { rows } = await db.query<{ fee_flat_kes: string; fee_kes: string }>(
        'SELECT fee_flat_kes::text, fee_kes::text FROM quotes WHERE quote_id = $1',
        [changed.body.quoteId],
      );
      expect(rows).toEqual([{ fee_flat_kes: '20.00', fee_kes: '30.00' }]);
    } finally {
      await db.query("UPDATE partner_profiles SET fee_flat_kes = '10.00' WHERE partner_id = $1", [partner.partnerId]);
    }
    const restored = await quote({ side: 'buy', kesAmount: '1000.00' });
    expect(restored.body).toMatchObject({ kesTotalAmount: '1020.00', fee: { kesAmount: '20.00' } });
  });

  it('FEE_PRICING_INVALID for a partner without a profile row', async () => {
    const parkedId = randomUUID();
    await db.query('UPDATE partner_profiles SET partner_id = $2 WHERE partner_id = $1', [partner.partnerId, parkedId]);
    try {
      expectRefusal(
        await quote({ side: 'sell', kesAmount: '1000.00' }),
        503,
        'Service Unavailable',
        'FEE_PRICING_INVALID',
      );
    } finally {
      await db.query('UPDATE partner_profiles SET partner_id = $1 WHERE partner_id = $2', [
        partner.partnerId,
        parkedId,
      ]);
    }
    expect((await quote({ side: 'sell', kesAmount: '1000.00' })).status).toBe(201);
  });

  it('RATE_UNAVAILABLE once a halted rate is older than the staleness limit', async () => {
    const halted = await pinRate(true);
    try {
      // Halting freezes the observation; until it ages past the limit, quotes still price.
      expect((await quote({ side: 'buy', kesAmount: '1000.00' })).status).toBe(201);
      const staleAtMs = Date.parse(halted.body.observedAt) + stalenessLimitMs() + STALENESS_MARGIN_MS;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, staleAtMs - Date.now())));
      expectRefusal(await quote({ side: 'buy', kesAmount: '1000.00' }), 503, 'Service Unavailable', 'RATE_UNAVAILABLE');
      expectRefusal(
        await quote({ side: 'sell', usdtAmount: '1.000000' }),
        503,
        'Service Unavailable',
        'RATE_UNAVAILABLE',
      );
    } finally {
      await pinRate(false);
    }
    expect((await quote({ side: 'buy', kesAmount: '1000.00' })).status).toBe(201);
  });
});
