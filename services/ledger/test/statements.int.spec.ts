// Proves GET /v1/balances/{accountId}/transactions on the test stack: after a
// mixed day of one partner (KES credits, a buy order, a settled and a refused
// transfer, a USDT deposit and a settled USDT send), each account's statement
// over the day's window sums exactly (decimal strings, never numbers) to the
// change of its available balance, every line's availableAfter is the previous
// one's plus its amount, the newest equals GET /v1/balances, and each line
// names its type and the resource that moved it; pages neither shift nor
// repeat while new movements land; another partner's, an unknown and a
// malformed account id answer the same 404; every bad parameter is named.
import { randomBytes, randomUUID } from 'node:crypto';
import { Big } from '@platform/money';
import {
  createTestPartner,
  HttpResult,
  PartnerHttpClient,
  partnerWallet,
  sandboxCode,
  waitFor,
} from '@platform/testing';

const RATE_LIMIT_PER_MINUTE = 100_000;
const CAP_KES = '50000000.00';
/** A USDT deposit held because trading missed the ledger's offer is credited after 60 s; plus a margin. */
const USDT_CREDIT_WAIT_MS = 75_000;
const DAY_TIMEOUT_MS = 180_000;
/** Keeps the window's bounds clear of the movements on either side of it (same machine clock as the database). */
const CLOCK_MARGIN_MS = 50;
const SETTLE_WAIT_MS = 30_000;

interface Balance {
  accountId: string;
  currency: string;
  available: string;
  held: string;
}
interface Line {
  id: string;
  accountId: string;
  currency: string;
  type: string;
  amount: string;
  direction: string;
  availableAfter: string;
  createdAt: string;
  resourceId: string | null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function balances(http: PartnerHttpClient): Promise<Record<string, Balance>> {
  const answer = await http.get('/v1/balances');
  expect(answer.status).toBe(200);
  return Object.fromEntries((answer.body as Balance[]).map((balance) => [balance.currency, balance]));
}

async function reaches(http: PartnerHttpClient, path: string, statuses: string[]): Promise<Record<string, any>> {
  return waitFor(
    async () => {
      const read = await http.get(path);
      return statuses.includes(read.body.status) ? read.body : undefined;
    },
    { what: `${path} ${statuses.join('|')}`, timeoutMs: SETTLE_WAIT_MS },
  );
}

/** Every line of the statement of `accountId` within the query, newest first, `limit` at a time. */
async function statement(http: PartnerHttpClient, accountId: string, query: string, limit: number): Promise<Line[]> {
  const lines: Line[] = [];
  let cursor: string | null = null;
  do {
    const page: HttpResult = await http.get(
      `/v1/balances/${accountId}/transactions?${query}${query ? '&' : ''}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
    );
    expect(page.status).toBe(200);
    expect((page.body as Line[]).length).toBeLessThanOrEqual(limit);
    lines.push(...(page.body as Line[]));
    cursor = page.headers.get('x-next-cursor');
  } while (cursor);
  return lines;
}

/** Each line is the one before it (older) moved by its amount, to the last decimal. */
function expectChained(lines: Line[]): void {
  for (let index = 0; index + 1 < lines.length; index += 1) {
    const newer = lines[index]!;
    const older = lines[index + 1]!;
    expect(new Big(older.availableAfter).plus(newer.amount).eq(newer.availableAfter)).toBe(true);
    expect(newer.direction).toBe(newer.amount.startsWith('-') ? 'debit' : 'credit');
  }
}

const sum = (lines: Line[]) => lines.reduce((total, line) => total.plus(line.amount), new Big(0));
const window = (from: Date, to: Date) =>
  `from=${encodeURIComponent(from.toISOString())}&to=${encodeURIComponent(to.toISOString())}`;

describe('statements', () => {
  let http: PartnerHttpClient;
  let other: PartnerHttpClient;
  let before: Record<string, Balance>;
  let after: Record<string, Balance>;
  let dayStart: Date;
  let dayEnd: Date;
  const resources: Record<string, string> = {};

  async function transfer(accountNumber: string): Promise<string> {
    const created = await http.post('/v1/transfers', {
      rail: 'mobile_money',
      destination: { accountNumber, accountName: 'Jane Wanjiru' },
      amount: { currency: 'KES', value: '100.00' },
      idempotencyKey: `day-${randomUUID()}`,
    });
    expect(created.status).toBe(202);
    expect(
      (
        await http.post(`/v1/confirmations/${created.body.confirmation.id}`, {
          code: await sandboxCode(http.sdk, created.body.id),
        })
      ).status,
    ).toBe(200);
    return created.body.id as string;
  }

  /** The day: every kind of movement, each run to its end so no hold is left open. */
  async function mixedDay(walletId: string): Promise<void> {
    expect((await http.post('/v1/sandbox/kes-credits', { amount: '1000.00' })).status).toBe(201);
    const quote = await http.post('/v1/quotes', { side: 'buy', kesAmount: '1000.00' });
    expect(quote.status).toBe(201);
    const order = await http.post('/v1/orders/buy', {
      quoteId: quote.body.quoteId,
      partnerReference: `day-${randomUUID()}`,
    });
    expect(order.status).toBe(202);
    resources.order = order.body.orderId;
    resources.transfer = await transfer('254712345678');
    // The sandbox bank refuses an account number ending 0000: the transfer fails and its hold is given back.
    resources.refusedTransfer = await transfer('254712340000');
    const send = await http.post('/v1/usdt/sends', {
      destinationWalletId: walletId,
      usdtAmount: '2.500000',
      idempotencyKey: `day-${randomUUID()}`,
    });
    expect(send.status).toBe(202);
    resources.send = send.body.id;
    expect(
      (
        await http.post(`/v1/confirmations/${send.body.confirmation.id}`, {
          code: await sandboxCode(http.sdk, send.body.id),
        })
      ).status,
    ).toBe(200);
    await reaches(http, `/v1/orders/${resources.order}`, ['settled']);
    await reaches(http, `/v1/transfers/${resources.transfer}`, ['settled']);
    await reaches(http, `/v1/transfers/${resources.refusedTransfer}`, ['failed']);
    await reaches(http, `/v1/usdt/sends/${resources.send}`, ['settled']);
  }

  beforeAll(async () => {
    const domain = `s${randomUUID().slice(0, 8)}.example.com`;
    const partner = await createTestPartner({
      adminDomain: domain,
      rateLimitPerMinute: RATE_LIMIT_PER_MINUTE,
      extraArgs: ['--daily-cap-kes', CAP_KES, '--per-order-cap-kes', CAP_KES],
    });
    http = new PartnerHttpClient(partner);
    other = new PartnerHttpClient(await createTestPartner({ rateLimitPerMinute: RATE_LIMIT_PER_MINUTE }));
    expect((await http.post('/v1/admins', { email: `treasurer@${domain}`, name: 'Treasurer' })).status).toBe(201);
    expect((await http.post('/v1/sandbox/rates', { bid: '128.0000', ask: '130.0000' })).status).toBe(200);
    // Before the day: money on both balances, so the window starts from a balance that is not zero.
    expect((await http.post('/v1/sandbox/kes-credits', { amount: '5000.00' })).status).toBe(201);
    expect(
      (
        await http.post('/v1/sandbox/usdt-deposits', {
          txHash: randomBytes(32).toString('hex'),
          usdtAmount: '20.000000',
        })
      ).status,
    ).toBe(201);
    await waitFor(async () => (await balances(http)).USDT!.available === '20.000000' || undefined, {
      timeoutMs: USDT_CREDIT_WAIT_MS,
      what: 'the USDT deposit credited',
    });
    const walletId = await partnerWallet(http);
    before = await balances(http);
    await sleep(CLOCK_MARGIN_MS);
    dayStart = new Date();
    await sleep(CLOCK_MARGIN_MS);
    await mixedDay(walletId);
    await sleep(CLOCK_MARGIN_MS);
    dayEnd = new Date();
    after = await balances(http);
  }, DAY_TIMEOUT_MS);

  it.each(['KES', 'USDT'])(
    'the %s lines of the day sum exactly to the change of its available balance',
    async (currency) => {
      const accountId = before[currency]!.accountId;
      const day = await statement(http, accountId, window(dayStart, dayEnd), 3);
      expect(day.length).toBeGreaterThan(0);
      expect(sum(day).eq(new Big(after[currency]!.available).minus(before[currency]!.available))).toBe(true);
      expectChained(day);
      expect(day[0]!.availableAfter).toBe(after[currency]!.available);
      expect(
        new Big(day[day.length - 1]!.availableAfter).minus(day[day.length - 1]!.amount).eq(before[currency]!.available),
      ).toBe(true);
      for (const line of day) expect(line).toMatchObject({ accountId, currency });
    },
  );

  it('names each KES movement and the resource that caused it, holds included', async () => {
    const day = await statement(http, before.KES!.accountId, window(dayStart, dayEnd), 100);
    const of = (resourceId: string | undefined) =>
      day
        .filter((line) => line.resourceId === resourceId)
        .map((line) => [line.type, line.amount])
        .reverse();
    expect(day.filter((line) => line.type === 'credit').map((line) => line.amount)).toEqual(['1000.00']);
    const order = await http.get(`/v1/orders/${resources.order}`);
    const total = order.body.kesTotalAmount as string;
    expect(of(resources.order)).toEqual([
      ['hold_placed', `-${total}`],
      ['hold_released', total],
      ['order', `-${total}`],
    ]);
    expect(of(resources.transfer)).toEqual([
      ['hold_placed', '-125.00'],
      ['hold_released', '125.00'],
      ['transfer', '-125.00'],
    ]);
    expect(of(resources.refusedTransfer)).toEqual([
      ['hold_placed', '-125.00'],
      ['hold_released', '125.00'],
    ]);
  });

  it('names each USDT movement: the bought USDT and the send', async () => {
    const day = await statement(http, before.USDT!.accountId, window(dayStart, dayEnd), 100);
    const order = await http.get(`/v1/orders/${resources.order}`);
    expect(day.filter((line) => line.resourceId === resources.order).map((line) => [line.type, line.amount])).toEqual([
      ['order', order.body.usdtAmount],
    ]);
    expect(
      day
        .filter((line) => line.resourceId === resources.send)
        .map((line) => [line.type, line.amount])
        .reverse(),
    ).toEqual([
      ['hold_placed', '-2.500000'],
      ['hold_released', '2.500000'],
      ['usdt_send', '-2.500000'],
    ]);
  });

  it("the whole statement of a new partner sums to its balance, and the day's window leaves out what came before", async () => {
    const all = await statement(http, before.KES!.accountId, '', 100);
    expect(sum(all).eq(after.KES!.available)).toBe(true);
    expectChained(all);
    const untilDay = await statement(
      http,
      before.KES!.accountId,
      `to=${encodeURIComponent(dayStart.toISOString())}`,
      100,
    );
    expect(sum(untilDay).eq(before.KES!.available)).toBe(true);
    expect(untilDay.map((line) => [line.type, line.amount])).toEqual([['credit', '5000.00']]);
  });

  it('pages by cursor, and a movement that lands meanwhile never shifts or repeats a page', async () => {
    const accountId = before.KES!.accountId;
    const whole = await statement(http, accountId, '', 100);
    const first = await http.get(`/v1/balances/${accountId}/transactions?limit=2`);
    expect((first.body as Line[]).map((line) => line.id)).toEqual(whole.slice(0, 2).map((line) => line.id));
    expect((await http.post('/v1/sandbox/kes-credits', { amount: '7.00' })).status).toBe(201);
    const seen = (first.body as Line[]).map((line) => line.id);
    let cursor = first.headers.get('x-next-cursor');
    while (cursor) {
      const next = await http.get(`/v1/balances/${accountId}/transactions?limit=2&cursor=${cursor}`);
      seen.push(...(next.body as Line[]).map((line) => line.id));
      cursor = next.headers.get('x-next-cursor');
    }
    expect(seen).toEqual(whole.map((line) => line.id));
    const newest = await http.get(`/v1/balances/${accountId}/transactions?limit=1`);
    expect(newest.body[0]).toMatchObject({ type: 'credit', amount: '7.00' });
    expect(new Big(newest.body[0].availableAfter).minus('7.00').eq(whole[0]!.availableAfter)).toBe(true);
  });

  it("answers another partner's, an unknown and a malformed account id with the same 404", async () => {
    const foreign = await other.get(`/v1/balances/${before.KES!.accountId}/transactions`);
    const unknown = await other.get(`/v1/balances/${randomUUID()}/transactions`);
    const malformed = await other.get('/v1/balances/not-an-account/transactions');
    for (const answer of [foreign, unknown, malformed]) {
      expect(answer.status).toBe(404);
      expect(answer.body.message).toBe('ACCOUNT_NOT_FOUND');
      expect({ ...answer.body, requestId: null }).toEqual({ ...foreign.body, requestId: null });
    }
    // The partner's own other balances are its own.
    expect((await http.get(`/v1/balances/${before.USD!.accountId}/transactions`)).status).toBe(200);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=-1', 'limit'],
    ['from=2026-02-30', 'from'],
    ['to=tomorrow', 'to'],
    ['cursor=not-a-cursor', 'cursor'],
    ['cursor=%2F%2F', 'cursor'],
    ['status=settled', 'status'],
    ['from=2026-01-01&from=2026-01-02', 'from'],
  ])('refuses %s, naming it', async (query, name) => {
    const refused = await http.get(`/v1/balances/${before.KES!.accountId}/transactions?${query}`);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe(`Validation failed on: ${name}`);
  });
});
