// Proves GET /v1/orders: the partner's own orders newest first, each as
// GET /v1/orders/{id} shows it; pages that neither shift nor repeat while new
// orders arrive; cursors exact to the microsecond (three orders in one
// millisecond page one by one); the status, partnerReference and [from, to)
// filters; another partner sees none of them; every bad parameter is named.
import type { HttpResult } from '@platform/testing';
import { fundKes, orderPartner, OrderPartner, quote, useOrderSpecPools } from './order-support';

const ORDERS = 5;

async function buy(p: OrderPartner, partnerReference: string): Promise<string> {
  const q = await quote(p.http, 'buy', { kesAmount: '1000.00' });
  const created = await p.http.post('/v1/orders/buy', { quoteId: q.quoteId, partnerReference });
  expect(created.status).toBe(202);
  return created.body.orderId;
}

function ids(result: HttpResult): string[] {
  expect(result.status).toBe(200);
  return (result.body as { orderId: string }[]).map((order) => order.orderId);
}

async function allPages(p: OrderPartner, query: string): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | null = '';
  while (cursor !== null) {
    const page = await p.http.get(`/v1/orders?${query}${cursor ? `&cursor=${cursor}` : ''}`);
    pages.push(ids(page));
    cursor = page.headers.get('x-next-cursor');
  }
  return pages;
}

describe('GET /v1/orders', () => {
  let p: OrderPartner;
  const pools = useOrderSpecPools();
  // Oldest first.
  const created: string[] = [];

  beforeAll(async () => {
    p = await orderPartner();
    await fundKes(p.http, '100000.00');
    for (let index = 0; index < ORDERS; index += 1) created.push(await buy(p, `list-${index}`));
  });

  it("lists the partner's orders newest first, each as GET /v1/orders/{id} shows it", async () => {
    const page = await p.http.get('/v1/orders');
    expect(ids(page)).toEqual([...created].reverse());
    expect(page.headers.get('x-next-cursor')).toBeNull();
    const single = await p.http.get(`/v1/orders/${created[0]}`);
    const listed = (page.body as { orderId: string }[]).find((order) => order.orderId === created[0]);
    // Status and debit may move on between the two reads; everything fixed at creation must match.
    const fixed = [
      'orderId',
      'partnerReference',
      'side',
      'kesAmount',
      'usdtAmount',
      'rate',
      'kesTotalAmount',
      'fee',
      'createdAt',
    ];
    const pick = (order: Record<string, unknown>) => Object.fromEntries(fixed.map((key) => [key, order[key]]));
    expect(pick(listed as Record<string, unknown>)).toEqual(pick(single.body));
  });

  it('pages by cursor, and orders created meanwhile never shift or repeat a page', async () => {
    const first = await p.http.get('/v1/orders?limit=2');
    expect(ids(first)).toEqual([created[4], created[3]]);
    const cursor = first.headers.get('x-next-cursor');
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    const newest = await buy(p, 'list-during-paging');
    const second = await p.http.get(`/v1/orders?limit=2&cursor=${cursor}`);
    expect(ids(second)).toEqual([created[2], created[1]]);
    const third = await p.http.get(`/v1/orders?limit=2&cursor=${second.headers.get('x-next-cursor')}`);
    expect(ids(third)).toEqual([created[0]]);
    expect(third.headers.get('x-next-cursor')).toBeNull();
    expect(ids(await p.http.get('/v1/orders?limit=1'))).toEqual([newest]);
  });

  it('pages exactly through orders created within one millisecond', async () => {
    const sameMillisecond = [];
    for (let index = 0; index < 3; index += 1) sameMillisecond.push(await buy(p, `same-ms-${index}`));
    // Microseconds apart, in one millisecond: a cursor kept to the millisecond would skip two of them.
    for (const [index, orderId] of sameMillisecond.entries()) {
      await pools.trading.query(
        `UPDATE orders SET created_at = '2026-01-01T00:00:00.000${index + 1}00Z' WHERE order_id = $1`,
        [orderId],
      );
    }
    const window = 'from=2026-01-01&to=2026-01-02&limit=1';
    expect(await allPages(p, window)).toEqual([[sameMillisecond[2]], [sameMillisecond[1]], [sameMillisecond[0]]]);
  });

  it('filters by status, partnerReference and creation time', async () => {
    expect(ids(await p.http.get('/v1/orders?partnerReference=list-3'))).toEqual([created[3]]);
    expect(ids(await p.http.get('/v1/orders?partnerReference=unknown'))).toEqual([]);
    const statuses = new Set(
      (await p.http.get('/v1/orders?limit=100')).body.map((order: { status: string }) => order.status),
    );
    for (const status of statuses) {
      const filtered = await p.http.get(`/v1/orders?status=${status}&limit=100`);
      expect(filtered.body.length).toBeGreaterThan(0);
      expect(filtered.body.every((order: { status: string }) => order.status === status)).toBe(true);
    }
    expect(ids(await p.http.get('/v1/orders?status=expired'))).toEqual([]);
    expect(ids(await p.http.get('/v1/orders?from=2026-01-01T00:00:00Z&to=2026-01-01T00:00:00.001Z'))).toHaveLength(3);
    expect(ids(await p.http.get('/v1/orders?from=2026-01-01T00:00:00.001Z&to=2026-01-02'))).toEqual([]);
  });

  it('shows another partner none of them', async () => {
    const other = await orderPartner();
    expect(ids(await other.http.get('/v1/orders'))).toEqual([]);
    expect(ids(await other.http.get('/v1/orders?partnerReference=list-0'))).toEqual([]);
  });

  it.each([
    ['status=bogus', 'status'],
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['from=2026-02-30', 'from'],
    ['to=yesterday', 'to'],
    ['cursor=not-a-cursor', 'cursor'],
    [`cursor=${Buffer.from('2026-01-01 00:00:00+00|x').toString('base64url')}`, 'cursor'],
    ['colour=blue', 'colour'],
    ['limit=5&limit=6', 'limit'],
  ])('refuses %s, naming it', async (query, name) => {
    const refused = await p.http.get(`/v1/orders?${query}`);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe(`Validation failed on: ${name}`);
  });
});
