// Proves debit-first buy orders end to end through the gateway on the real
// test stack: the 202 shape (funds_reserved, kesDebit reserved), settlement in
// one balanced entry (KES debited, USDT credited to the custodial balance,
// funds_confirmed then settled events whose data agrees with GET), replay by
// partnerReference (also concurrent; the repeat's quote not consumed), every
// refusal in the contract's order, the sandbox bank's magic cents (.13
// ambiguous, resolved by reconciliation to settled; .14 refused: rejected,
// hold released, quote consumed), parallel orders never overdrawing the
// balance or the daily cap, and the operator switches.
import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import {
  balances, expectRefusal, fundKes, OrderPartner, orderEvents, orderPartner, orderUntil, ops, quote, tradingPool,
} from './order-support';

let pool: Pool;

beforeAll(() => {
  pool = tradingPool();
});

afterAll(async () => {
  await pool.end();
});

function buy(p: OrderPartner, body: Record<string, unknown>) {
  return p.http.post('/v1/orders/buy', body);
}

describe('POST /v1/orders/buy (debit-first)', () => {
  it('reserves, then settles in one entry with funds_confirmed and settled events', async () => {
    // fee 50 bps, no flat: 1000.00 at 130.0000 → 7.692307 USDT, fee 5.00, total 1005.00.
    const p = await orderPartner();
    await fundKes(p.http, '2000.00');
    const q = await quote(p.http, 'buy', { kesAmount: '1000.00' });
    const created = await buy(p, { quoteId: q.quoteId, partnerReference: 'buy-1', expectedUsdtAmount: '7.692307' });
    expect(created.status).toBe(202);
    expect(created.body).toMatchObject({
      status: 'funds_reserved',
      kesAmount: '1000.00',
      usdtAmount: '7.692307',
      rate: '130.0000',
      kesTotalAmount: '1005.00',
      fee: { kesAmount: '5.00', currency: 'KES', percentBps: 50, flatKesAmount: '0.00', capKesAmount: null },
      expiresAt: q.expiresAt,
      kesDebit: { status: 'reserved' },
    });
    const orderId = created.body.orderId as string;
    const settled = await orderUntil(p.http, orderId, 'settled');
    expect(settled.kesDebit).toEqual({ status: 'debited' });
    expect(await balances(p.http)).toMatchObject({ KES: { available: '995.00', held: '0.00' }, USDT: { available: '7.692307' } });
    const events = await orderEvents(pool, orderId);
    expect(events.map((event) => event.type)).toEqual(['order.funds_confirmed', 'order.settled']);
    expect(events[1].data).toEqual({
      orderId, partnerReference: 'buy-1', side: 'buy', status: 'settled',
      kesAmount: '1000.00', feeKesAmount: '5.00', kesTotalAmount: '1005.00', usdtAmount: '7.692307', rate: '130.0000',
    });
  });

  it('returns the original order for the same partnerReference, without consuming the repeat quote, also in parallel', async () => {
    const p = await orderPartner();
    await fundKes(p.http, '5000.00');
    const first = await quote(p.http, 'buy', { kesAmount: '100.00' });
    const created = await buy(p, { quoteId: first.quoteId, partnerReference: 'same' });
    expect(created.status).toBe(202);
    const repeatQuote = await quote(p.http, 'buy', { kesAmount: '100.00' });
    const replay = await buy(p, { quoteId: repeatQuote.quoteId, partnerReference: 'same' });
    expect(replay.status).toBe(202);
    expect(replay.body.orderId).toBe(created.body.orderId);
    // The repeat's quote is still usable.
    expect((await buy(p, { quoteId: repeatQuote.quoteId, partnerReference: 'other' })).status).toBe(202);

    const quotes = await Promise.all(Array.from({ length: 5 }, () => quote(p.http, 'buy', { kesAmount: '10.00' })));
    const parallel = await Promise.all(quotes.map((q) => buy(p, { quoteId: q.quoteId, partnerReference: 'parallel' })));
    expect(parallel.map((result) => result.status)).toEqual([202, 202, 202, 202, 202]);
    expect(new Set(parallel.map((result) => result.body.orderId)).size).toBe(1);
    const rows = await pool.query('SELECT count(*)::int AS n FROM orders WHERE partner_id = $1 AND partner_reference = $2', [p.partner.partnerId, 'parallel']);
    expect(rows.rows[0].n).toBe(1);
  });

  it('refuses malformed bodies and unknown or foreign quotes', async () => {
    const p = await orderPartner();
    const other = await orderPartner();
    const foreign = await quote(other.http, 'buy', { kesAmount: '100.00' });
    const q = await quote(p.http, 'buy', { kesAmount: '100.00' });
    const bad = await buy(p, { quoteId: q.quoteId, partnerReference: '', expectedUsdtAmount: '1.1234567' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('Validation failed on: partnerReference, expectedUsdtAmount');
    expect((await buy(p, { partnerReference: 'x' })).status).toBe(400);
    expectRefusal(await buy(p, { quoteId: randomUUID(), partnerReference: 'x' }), 404, 'QUOTE_NOT_FOUND');
    expectRefusal(await buy(p, { quoteId: foreign.quoteId, partnerReference: 'x' }), 404, 'QUOTE_NOT_FOUND');
  });

  it('refuses wrong side, expected amount, caps and balance before consuming the quote', async () => {
    const p = await orderPartner(['--per-order-cap-kes', '1000.00', '--daily-cap-kes', '1700.00']);
    const sellQuote = await quote(p.http, 'sell', { kesAmount: '100.00' });
    expectRefusal(await buy(p, { quoteId: sellQuote.quoteId, partnerReference: 'side' }), 409, 'QUOTE_SIDE_MISMATCH');
    const q = await quote(p.http, 'buy', { kesAmount: '800.00' });
    expectRefusal(await buy(p, { quoteId: q.quoteId, partnerReference: 'exp', expectedUsdtAmount: '1.000000' }), 409, 'EXPECTED_AMOUNT_MISMATCH');
    const big = await quote(p.http, 'buy', { kesAmount: '1000.01' });
    expectRefusal(await buy(p, { quoteId: big.quoteId, partnerReference: 'cap' }), 422, 'ORDER_EXCEEDS_PER_ORDER_CAP');
    expectRefusal(await buy(p, { quoteId: q.quoteId, partnerReference: 'poor' }), 422, 'INSUFFICIENT_KES_BALANCE');
    await fundKes(p.http, '3000.00');
    // The quote refused for the balance was not consumed.
    expect((await buy(p, { quoteId: q.quoteId, partnerReference: 'funded' })).status).toBe(202);
    expectRefusal(await buy(p, { quoteId: q.quoteId, partnerReference: 'again' }), 409, 'QUOTE_EXPIRED_OR_CONSUMED');
    // 800.00 counted; 950.00 more breaches 1700.00.
    const second = await quote(p.http, 'buy', { kesAmount: '950.00' });
    expectRefusal(await buy(p, { quoteId: second.quoteId, partnerReference: 'daily' }), 422, 'ORDER_EXCEEDS_DAILY_CAP');
  });

  it('never lets parallel orders overdraw the balance or exceed the daily cap', async () => {
    const p = await orderPartner(['--fee-bps', '0', '--daily-cap-kes', '1000.00', '--per-order-cap-kes', '1000.00']);
    await fundKes(p.http, '700.00');
    const quotes = await Promise.all(Array.from({ length: 10 }, () => quote(p.http, 'buy', { kesAmount: '150.00' })));
    const results = await Promise.all(quotes.map((q, index) => buy(p, { quoteId: q.quoteId, partnerReference: `p-${index}` })));
    const accepted = results.filter((result) => result.status === 202);
    expect(accepted).toHaveLength(4);
    // A loser is refused by the balance, or by the cap while losers still held their reservations.
    const codes = new Set(results.filter((result) => result.status !== 202).map((result) => `${result.status} ${result.body.message}`));
    expect([...codes].every((code) => code === '422 INSUFFICIENT_KES_BALANCE' || code === '422 ORDER_EXCEEDS_DAILY_CAP')).toBe(true);
    const after = await balances(p.http);
    expect(after.KES.available).toBe('100.00');
    await fundKes(p.http, '1000.00');
    const more = await Promise.all(Array.from({ length: 6 }, () => quote(p.http, 'buy', { kesAmount: '150.00' })));
    const capped = await Promise.all(more.map((q, index) => buy(p, { quoteId: q.quoteId, partnerReference: `c-${index}` })));
    // 4 × 150 already count; 1000 leaves room for 2 more.
    expect(capped.filter((result) => result.status === 202)).toHaveLength(2);
    expect(capped.filter((result) => result.status === 422).every((result) => result.body.message === 'ORDER_EXCEEDS_DAILY_CAP')).toBe(true);
  });

  it('answers the sandbox bank: .13 ambiguous then reconciled to settled, .14 refused and rejected', async () => {
    const p = await orderPartner(['--fee-bps', '0']);
    await fundKes(p.http, '1000.00');
    const ambiguousQuote = await quote(p.http, 'buy', { kesAmount: '100.13' });
    const ambiguous = await buy(p, { quoteId: ambiguousQuote.quoteId, partnerReference: 'amb' });
    expectRefusal(ambiguous, 503, 'KES_DEBIT_AMBIGUOUS');
    expectRefusal(await buy(p, { quoteId: ambiguousQuote.quoteId, partnerReference: 'amb' }), 503, 'KES_DEBIT_AMBIGUOUS');
    const [row] = (await pool.query('SELECT order_id FROM orders WHERE partner_id = $1 AND partner_reference = $2', [p.partner.partnerId, 'amb'])).rows;
    const pending = await p.http.get(`/v1/orders/${row.order_id}`);
    expect(pending.body).toMatchObject({ status: 'funds_reserved', kesDebit: { status: 'reserved' } });
    const settled = await orderUntil(p.http, row.order_id, 'settled');
    expect(settled.kesDebit).toEqual({ status: 'debited' });

    const refusedQuote = await quote(p.http, 'buy', { kesAmount: '100.14' });
    expectRefusal(await buy(p, { quoteId: refusedQuote.quoteId, partnerReference: 'ref' }), 503, 'KES_DEBIT_FAILED');
    const [refused] = (await pool.query('SELECT order_id FROM orders WHERE partner_id = $1 AND partner_reference = $2', [p.partner.partnerId, 'ref'])).rows;
    const rejected = await p.http.get(`/v1/orders/${refused.order_id}`);
    expect(rejected.body).toMatchObject({ status: 'rejected', kesDebit: { status: 'released' } });
    expectRefusal(await buy(p, { quoteId: refusedQuote.quoteId, partnerReference: 'ref-2' }), 409, 'QUOTE_EXPIRED_OR_CONSUMED');
    expect(await balances(p.http)).toMatchObject({ KES: { available: '899.87', held: '0.00' } });
  });

  it('reads 404 for unknown or foreign orders', async () => {
    const p = await orderPartner();
    const other = await orderPartner();
    await fundKes(other.http, '200.00');
    const q = await quote(other.http, 'buy', { kesAmount: '100.00' });
    const created = await buy(other, { quoteId: q.quoteId, partnerReference: 'mine' });
    expectRefusal(await p.http.get(`/v1/orders/${created.body.orderId}`), 404, 'ORDER_NOT_FOUND');
    expectRefusal(await p.http.get(`/v1/orders/${randomUUID()}`), 404, 'ORDER_NOT_FOUND');
    expectRefusal(await p.http.get('/v1/orders/not-a-uuid'), 404, 'ORDER_NOT_FOUND');
  });
});

describe('operator switches and account readiness', () => {
  it('refuses with the switch that is out, in the contract order', async () => {
    const p = await orderPartner();
    await fundKes(p.http, '500.00');
    const q = await quote(p.http, 'buy', { kesAmount: '100.00' });
    const attempt = () => buy(p, { quoteId: q.quoteId, partnerReference: 'switch' });
    try {
      expect(await ops(['kill-switch', 'on'])).toEqual({ killSwitch: 'on' });
      expectRefusal(await attempt(), 503, 'KILL_SWITCH_ENGAGED');
      expect(await ops(['kill-switch', 'off'])).toEqual({ killSwitch: 'off' });
      expect(await ops(['swaps', 'off'])).toEqual({ swaps: 'off' });
      expectRefusal(await attempt(), 503, 'SWAPS_DISABLED');
    } finally {
      await ops(['kill-switch', 'off']);
      await ops(['swaps', 'on']);
    }
    expect(await ops(['partner', 'suspend', '--partner', p.partner.partnerId])).toEqual({ partnerId: p.partner.partnerId, status: 'suspended' });
    expectRefusal(await attempt(), 409, 'PARTNER_SUSPENDED');
    expect(await ops(['partner', 'resume', '--partner', p.partner.partnerId])).toEqual({ partnerId: p.partner.partnerId, status: 'active' });
    for (const [status, code] of [['not_allocated', 'PARTNER_VA_NOT_ALLOCATED'], ['activating', 'PARTNER_VA_ACTIVATING'], ['suspended', 'PARTNER_VA_SUSPENDED']]) {
      await ops(['kes-account', 'set-status', '--partner', p.partner.partnerId, '--status', status]);
      expectRefusal(await attempt(), 503, code);
    }
    await ops(['kes-account', 'set-status', '--partner', p.partner.partnerId, '--status', 'active']);
    try {
      expect(await ops(['treasury', 'set-state', '--currency', 'KES', '--state', 'unavailable'])).toEqual({ currency: 'KES', state: 'unavailable' });
      expectRefusal(await attempt(), 503, 'TREASURY_ACCOUNT_UNAVAILABLE');
      await ops(['treasury', 'set-state', '--currency', 'KES', '--state', 'available']);
      await ops(['treasury', 'set-state', '--currency', 'USDT', '--state', 'not_registered']);
      expectRefusal(await attempt(), 503, 'TREASURY_ACCOUNT_NOT_REGISTERED');
    } finally {
      await ops(['treasury', 'set-state', '--currency', 'KES', '--state', 'available']);
      await ops(['treasury', 'set-state', '--currency', 'USDT', '--state', 'available']);
    }
    const fresh = await quote(p.http, 'buy', { kesAmount: '100.00' });
    expect((await buy(p, { quoteId: fresh.quoteId, partnerReference: 'switch' })).status).toBe(202);
  });
});
