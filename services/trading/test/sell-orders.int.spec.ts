// Proves deposit-mode sell orders end to end through the gateway on the real
// test stack: the 202 shape (awaiting_usdt, the partner's permanent deposit
// address, chain tron, sendBefore), every create refusal, PATCH of the hash
// (0x stripped, same hash 200, a different one, one used elsewhere, a buy
// order, a foreign order, a malformed hash), the ledger's deposit offers
// (matched by hash → funds_confirmed; a deposit held before the hash and
// claimed on attach; a short deposit → rejected and returned to the USDT
// balance) and expiry at sendBefore with order.expired.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { createTestPartner, PartnerHttpClient } from '@platform/testing';
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

const hash = () => randomBytes(32).toString('hex');

async function sellPartner(extraArgs: string[] = []): Promise<OrderPartner & { payoutId: string }> {
  const p = await orderPartner(extraArgs);
  const { id } = await ops<{ id: string }>(['payout-destination', 'add', '--partner', p.partner.partnerId, '--account-number', '254712345678', '--account-name', 'Test Payee']);
  return { ...p, payoutId: id };
}

function sell(p: OrderPartner, body: Record<string, unknown>) {
  return p.http.post('/v1/orders/sell', body);
}

function attach(http: PartnerHttpClient, orderId: string, txHash: unknown) {
  return http.request('PATCH', `/v1/orders/${orderId}`, { txHash });
}

async function newSell(p: OrderPartner & { payoutId: string }, usdtAmount = '10.000000'): Promise<Record<string, any>> {
  const q = await quote(p.http, 'sell', { usdtAmount });
  const created = await sell(p, { quoteId: q.quoteId, partnerReference: randomUUID(), payoutAccountId: p.payoutId });
  expect(created.status).toBe(202);
  return created.body;
}

describe('POST /v1/orders/sell (deposit mode)', () => {
  it('answers awaiting_usdt with the permanent deposit address and sendBefore', async () => {
    // fee 50 bps: 10 USDT at 128.0000 → 1280.00, fee 6.40, total 1273.60.
    const p = await sellPartner();
    const q = await quote(p.http, 'sell', { usdtAmount: '10.000000' });
    const created = await sell(p, { quoteId: q.quoteId, partnerReference: 'sell-1', payoutAccountId: p.payoutId });
    expect(created.status).toBe(202);
    expect(created.body).toMatchObject({
      status: 'awaiting_usdt', kesAmount: '1280.00', usdtAmount: '10.000000', rate: '128.0000', kesTotalAmount: '1273.60',
      fee: { kesAmount: '6.40', currency: 'KES', percentBps: 50 }, depositAddress: p.partner.usdtDepositAddress, chain: 'tron',
    });
    expect(Date.parse(created.body.sendBefore)).toBeGreaterThan(Date.now());
    expect(created.body.txHash).toBeUndefined();
    const replay = await sell(p, { quoteId: q.quoteId, partnerReference: 'sell-1', payoutAccountId: p.payoutId });
    expect(replay.status).toBe(202);
    expect(replay.body.orderId).toBe(created.body.orderId);
  });

  it('refuses bad bodies, unknown or unpayable payout accounts, the wrong side and a missing deposit address', async () => {
    const p = await sellPartner();
    const q = await quote(p.http, 'sell', { usdtAmount: '1.000000' });
    expect((await sell(p, { quoteId: q.quoteId, partnerReference: '', payoutAccountId: p.payoutId })).status).toBe(400);
    expect((await sell(p, { quoteId: q.quoteId, partnerReference: 'x' })).status).toBe(400);
    expectRefusal(await sell(p, { quoteId: randomUUID(), partnerReference: 'x', payoutAccountId: p.payoutId }), 404, 'QUOTE_NOT_FOUND');
    expectRefusal(await sell(p, { quoteId: q.quoteId, partnerReference: 'x', payoutAccountId: randomUUID() }), 404, 'PAYOUT_ACCOUNT_NOT_FOUND');
    const buyQuote = await quote(p.http, 'buy', { kesAmount: '100.00' });
    expectRefusal(await sell(p, { quoteId: buyQuote.quoteId, partnerReference: 'x', payoutAccountId: p.payoutId }), 409, 'QUOTE_SIDE_MISMATCH');
    await ops(['payout-destination', 'set-status', '--id', p.payoutId, '--status', 'frozen']);
    expectRefusal(await sell(p, { quoteId: q.quoteId, partnerReference: 'x', payoutAccountId: p.payoutId }), 409, 'PAYOUT_ACCOUNT_NOT_PAYABLE');

    const noAddress = await createTestPartner({ extraArgs: ['--deposit-address', 'none'] });
    const http = new PartnerHttpClient(noAddress);
    await http.post('/v1/sandbox/rates', { bid: '128.0000', ask: '130.0000' });
    const q2 = await quote(http, 'sell', { usdtAmount: '1.000000' });
    const refused = await http.post('/v1/orders/sell', { quoteId: q2.quoteId, partnerReference: 'x', payoutAccountId: randomUUID() });
    expectRefusal(refused, 503, 'USDT_DEPOSIT_ADDRESS_NOT_ALLOCATED');
  });

  it('attaches a hash: 0x stripped, the same again 200, never overwritten, never shared', async () => {
    const p = await sellPartner();
    const order = await newSell(p);
    const other = await newSell(p);
    const txHash = hash();
    const first = await attach(p.http, order.orderId, `0x${txHash}`);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ orderId: order.orderId, status: 'awaiting_usdt', txHash });
    expect((await attach(p.http, order.orderId, txHash)).status).toBe(200);
    expectRefusal(await attach(p.http, order.orderId, hash()), 409, 'TX_HASH_ALREADY_ATTACHED');
    expectRefusal(await attach(p.http, other.orderId, txHash), 409, 'TX_HASH_ALREADY_USED');
    expect((await attach(p.http, other.orderId, txHash.toUpperCase())).status).toBe(400);
    expect((await attach(p.http, other.orderId, 'abc')).status).toBe(400);
    expectRefusal(await attach(p.http, randomUUID(), hash()), 404, 'ORDER_NOT_FOUND');
    const stranger = await orderPartner();
    expectRefusal(await attach(stranger.http, order.orderId, hash()), 404, 'ORDER_NOT_FOUND');
    await fundKes(p.http, '500.00');
    const q = await quote(p.http, 'buy', { kesAmount: '100.00' });
    const buyOrder = await p.http.post('/v1/orders/buy', { quoteId: q.quoteId, partnerReference: 'buy' });
    expectRefusal(await attach(p.http, buyOrder.body.orderId, hash()), 409, 'ORDER_NOT_SELL_SIDE');
    expect((await p.http.get(`/v1/orders/${order.orderId}`)).body.txHash).toBe(txHash);
  });

  it('matches a deposit by its hash, also one held before the hash came, and rejects a short one', async () => {
    const p = await sellPartner();
    const byHash = await newSell(p);
    const txHash = hash();
    await attach(p.http, byHash.orderId, txHash);
    expect((await p.http.post('/v1/sandbox/usdt-deposits', { txHash, usdtAmount: '10.000000' })).status).toBe(201);
    await orderUntil(p.http, byHash.orderId, 'funds_reserved');
    expect((await orderEvents(pool, byHash.orderId)).map((event) => event.type)).toEqual(['order.funds_confirmed']);

    const late = await newSell(p);
    const lateHash = hash();
    // The partner has an order without a hash: the ledger holds the deposit for attribution.
    const held = await p.http.post('/v1/sandbox/usdt-deposits', { txHash: lateHash, usdtAmount: '10.000000' });
    expect(held.status).toBe(201);
    const attached = await attach(p.http, late.orderId, lateHash);
    expect(attached.status).toBe(200);
    expect(attached.body.status).toBe('funds_reserved');

    const short = await newSell(p);
    const shortHash = hash();
    await attach(p.http, short.orderId, shortHash);
    await p.http.post('/v1/sandbox/usdt-deposits', { txHash: shortHash, usdtAmount: '9.999999' });
    await orderUntil(p.http, short.orderId, 'rejected');
    expect((await orderEvents(pool, short.orderId)).map((event) => event.type)).toEqual(['order.rejected']);
    // The short deposit goes back to the partner's USDT balance.
    await orderUntil(p.http, short.orderId, 'rejected');
    const returned = await (async () => {
      for (let attempt = 0; attempt < 50; attempt += 1) {
        const usdt = (await balances(p.http)).USDT;
        if (usdt.available === '9.999999') return usdt.available;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      return (await balances(p.http)).USDT.available;
    })();
    expect(returned).toBe('9.999999');
  });

  it('expires an unfunded order at sendBefore with order.expired and refuses a late hash', async () => {
    const p = await sellPartner();
    const order = await newSell(p);
    const expired = await orderUntil(p.http, order.orderId, 'expired', 20_000);
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(expired.sendBefore));
    const events = await orderEvents(pool, order.orderId);
    expect(events.map((event) => event.type)).toEqual(['order.expired']);
    expect(events[0].data).toMatchObject({ orderId: order.orderId, side: 'sell', status: 'expired', kesTotalAmount: '1273.60' });
    expectRefusal(await attach(p.http, order.orderId, hash()), 409, 'ORDER_NOT_AWAITING_USDT');
    const caps = await pool.query('SELECT released_at FROM cap_usages WHERE usage_id = $1', [order.orderId]);
    expect(caps.rows[0].released_at).not.toBeNull();
  });

  it('refuses a balance-mode partner until USDT collection is configured', async () => {
    const p = await sellPartner(['--sell-mode', 'balance']);
    const q = await quote(p.http, 'sell', { usdtAmount: '1.000000' });
    expectRefusal(await sell(p, { quoteId: q.quoteId, partnerReference: 'bal', payoutAccountId: p.payoutId }), 503, 'BRIDGE_NOT_CONFIGURED');
  });
});
