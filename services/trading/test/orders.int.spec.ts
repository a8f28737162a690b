// Proves debit-first buy orders end to end through the gateway on the real
// test stack: the 202 shape (funds_reserved, kesDebit reserved), settlement in
// one balanced entry (KES debited, USDT credited to the custodial balance,
// funds_confirmed then settled events whose data agrees with GET), replay by
// partnerReference (also concurrent; the repeat's quote not consumed), every
// refusal in the contract's order, the sandbox bank's magic cents (.13
// ambiguous, resolved by reconciliation to settled; .14 refused: rejected,
// hold released, quote consumed), parallel orders never overdrawing the
// balance or the daily cap, partner suspension and KES account readiness.
//
// Sells (deposit mode): the 202 shape (awaiting_usdt, the partner's permanent
// deposit address, chain tron, sendBefore), every create refusal, PATCH of the
// hash (0x stripped, same hash 200, a different one, one used elsewhere, a buy
// order, a foreign order, a malformed hash), deposits the ledger attributes from
// the orders' registered expectations (claimed by hash and found by the
// scheduler; held before the hash and claimed on attach; short →
// rejected and returned to the USDT balance; excess credited), the proceeds
// paid out through payouts (settled; a refused payout → rejected), and expiry
// at sendBefore with order.expired (that order is made when the sells begin, so
// its sendBefore passes while they run). A hash is public on the chain: another
// partner attaching it to its own order, before or after the owner, neither
// blocks the owner's attach nor takes the owner's deposit.
//
// The platform-wide operator switches are proven in the serial faults project
// (tools/reliability/faults/platform-switches.faults.spec.ts).
import { randomBytes, randomUUID } from 'node:crypto';
import { createTestPartner, PartnerHttpClient } from '@platform/testing';
import {
  balances,
  expectRefusal,
  fundKes,
  ops,
  orderByReference,
  orderEvents,
  OrderPartner,
  orderPartner,
  orderUntil,
  quote,
  useOrderSpecPools,
} from './order-support';
import { untilShared } from './gateway-batches';

/** Rounds of concurrent calls tried before a spec gives up seeing them share a batch. */
const SHARED_ROUNDS_MAX = 10;

const pools = useOrderSpecPools();

/** Started now, awaited by a test later: a failure meanwhile is that test's, not an unhandled rejection. */
function started<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

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
    expect(await balances(p.http)).toMatchObject({
      KES: { available: '995.00', held: '0.00' },
      USDT: { available: '7.692307' },
    });
    const events = await orderEvents(pools.trading, orderId);
    expect(events.map((event) => event.type)).toEqual(['order.funds_confirmed', 'order.settled']);
    expect(events[1].data).toEqual({
      orderId,
      partnerReference: 'buy-1',
      side: 'buy',
      status: 'settled',
      kesAmount: '1000.00',
      feeKesAmount: '5.00',
      kesTotalAmount: '1005.00',
      usdtAmount: '7.692307',
      rate: '130.0000',
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
    const rows = await pools.trading.query(
      'SELECT count(*)::int AS n FROM orders WHERE partner_id = $1 AND partner_reference = $2',
      [p.partner.partnerId, 'parallel'],
    );
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
    expectRefusal(
      await buy(p, { quoteId: q.quoteId, partnerReference: 'exp', expectedUsdtAmount: '1.000000' }),
      409,
      'EXPECTED_AMOUNT_MISMATCH',
    );
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
    const results = await Promise.all(
      quotes.map((q, index) => buy(p, { quoteId: q.quoteId, partnerReference: `p-${index}` })),
    );
    const accepted = results.filter((result) => result.status === 202);
    expect(accepted).toHaveLength(4);
    // A loser is refused by the balance, or by the cap while losers still held their reservations.
    const codes = new Set(
      results.filter((result) => result.status !== 202).map((result) => `${result.status} ${result.body.message}`),
    );
    expect(
      [...codes].every((code) => code === '422 INSUFFICIENT_KES_BALANCE' || code === '422 ORDER_EXCEEDS_DAILY_CAP'),
    ).toBe(true);
    const after = await balances(p.http);
    expect(after.KES.available).toBe('100.00');
    await fundKes(p.http, '1000.00');
    const more = await Promise.all(Array.from({ length: 6 }, () => quote(p.http, 'buy', { kesAmount: '150.00' })));
    const capped = await Promise.all(
      more.map((q, index) => buy(p, { quoteId: q.quoteId, partnerReference: `c-${index}` })),
    );
    // 4 × 150 already count; 1000 leaves room for 2 more.
    expect(capped.filter((result) => result.status === 202)).toHaveLength(2);
    expect(
      capped
        .filter((result) => result.status === 422)
        .every((result) => result.body.message === 'ORDER_EXCEEDS_DAILY_CAP'),
    ).toBe(true);
  });

  it('answers the sandbox bank: .13 ambiguous then reconciled to settled, .14 refused and rejected', async () => {
    const p = await orderPartner(['--fee-bps', '0']);
    await fundKes(p.http, '1000.00');
    const ambiguousQuote = await quote(p.http, 'buy', { kesAmount: '100.13' });
    const ambiguous = await buy(p, { quoteId: ambiguousQuote.quoteId, partnerReference: 'amb' });
    expectRefusal(ambiguous, 503, 'KES_DEBIT_AMBIGUOUS');
    expectRefusal(
      await buy(p, { quoteId: ambiguousQuote.quoteId, partnerReference: 'amb' }),
      503,
      'KES_DEBIT_AMBIGUOUS',
    );
    const row = await orderByReference(pools.trading, p.partner.partnerId, 'amb');
    const pending = await p.http.get(`/v1/orders/${row.order_id}`);
    expect(pending.body).toMatchObject({ status: 'funds_reserved', kesDebit: { status: 'reserved' } });
    const settled = await orderUntil(p.http, row.order_id, 'settled');
    expect(settled.kesDebit).toEqual({ status: 'debited' });

    const refusedQuote = await quote(p.http, 'buy', { kesAmount: '100.14' });
    expectRefusal(await buy(p, { quoteId: refusedQuote.quoteId, partnerReference: 'ref' }), 503, 'KES_DEBIT_FAILED');
    const refused = await orderByReference(pools.trading, p.partner.partnerId, 'ref');
    const rejected = await p.http.get(`/v1/orders/${refused.order_id}`);
    expect(rejected.body).toMatchObject({ status: 'rejected', kesDebit: { status: 'released' } });
    expectRefusal(
      await buy(p, { quoteId: refusedQuote.quoteId, partnerReference: 'ref-2' }),
      409,
      'QUOTE_EXPIRED_OR_CONSUMED',
    );
    expect(await balances(p.http)).toMatchObject({ KES: { available: '899.87', held: '0.00' } });
  });

  it('reads 404 for unknown or foreign orders', async () => {
    const [p, other] = await Promise.all([orderPartner(), orderPartner()]);
    await fundKes(other.http, '200.00');
    const q = await quote(other.http, 'buy', { kesAmount: '100.00' });
    const created = await buy(other, { quoteId: q.quoteId, partnerReference: 'mine' });
    expectRefusal(await p.http.get(`/v1/orders/${created.body.orderId}`), 404, 'ORDER_NOT_FOUND');
    expectRefusal(await p.http.get(`/v1/orders/${randomUUID()}`), 404, 'ORDER_NOT_FOUND');
    expectRefusal(await p.http.get('/v1/orders/not-a-uuid'), 404, 'ORDER_NOT_FOUND');
  });

  it("answers concurrent reads each as its own, in shared batches: own 200, another partner's 404", async () => {
    // The gateway sends the reads made in one pass to trading as one GetOrders call
    // (adapters/coalesced-trading.ts). Reads are fired together until its
    // grpc_client_batch_items shows a batch of more than one (gateway-batches.ts);
    // whatever the grouping, each answer is its own.
    const [p, other] = await Promise.all([orderPartner(), orderPartner()]);
    await Promise.all([fundKes(p.http, '200.00'), fundKes(other.http, '200.00')]);
    const [mine, theirs] = await Promise.all(
      [p, other].map(async (partner) => {
        const q = await quote(partner.http, 'buy', { kesAmount: '100.00' });
        const created = await buy(partner, { quoteId: q.quoteId, partnerReference: 'concurrent-read' });
        expect(created.status).toBe(202);
        return created.body.orderId as string;
      }),
    );
    const readsOfOneRound = 5;
    const readTogether = async () => {
      const reads = await Promise.all(
        Array.from({ length: readsOfOneRound }, () => [
          p.http.get(`/v1/orders/${mine}`),
          p.http.get(`/v1/orders/${theirs}`),
          other.http.get(`/v1/orders/${theirs}`),
          other.http.get(`/v1/orders/${mine}`),
          p.http.get(`/v1/orders/${randomUUID()}`),
        ]).flat(),
      );
      for (let read = 0; read < readsOfOneRound; read += 1) {
        const [ownOfP, foreignToP, ownOfOther, foreignToOther, missing] = reads.slice(read * 5, read * 5 + 5);
        expect(ownOfP.status).toBe(200);
        expect(ownOfP.body).toMatchObject({ orderId: mine, partnerReference: 'concurrent-read' });
        expect(ownOfOther.status).toBe(200);
        expect(ownOfOther.body).toMatchObject({ orderId: theirs, partnerReference: 'concurrent-read' });
        expectRefusal(foreignToP, 404, 'ORDER_NOT_FOUND');
        expectRefusal(foreignToOther, 404, 'ORDER_NOT_FOUND');
        expectRefusal(missing, 404, 'ORDER_NOT_FOUND');
        for (const refused of [foreignToP, foreignToOther, missing])
          expect(refused.body.requestId).toBe(refused.headers.get('x-request-id'));
      }
    };
    await untilShared('GetOrders', SHARED_ROUNDS_MAX, readTogether);
  });
});

describe('partner switches and account readiness', () => {
  // The platform-wide switches (kill switch, swaps, treasury) are proven in the serial faults
  // project (tools/reliability/faults/platform-switches.faults.spec.ts): flipping them here
  // would refuse other files' orders, transfers and sends while they run.
  it('refuses a suspended partner and a KES account not ready, in the contract order', async () => {
    const p = await orderPartner();
    await fundKes(p.http, '500.00');
    const q = await quote(p.http, 'buy', { kesAmount: '100.00' });
    const attempt = () => buy(p, { quoteId: q.quoteId, partnerReference: 'switch' });
    expect(await ops(['partner', 'suspend', '--partner', p.partner.partnerId])).toEqual({
      partnerId: p.partner.partnerId,
      status: 'suspended',
    });
    expectRefusal(await attempt(), 409, 'PARTNER_SUSPENDED');
    expect(await ops(['partner', 'resume', '--partner', p.partner.partnerId])).toEqual({
      partnerId: p.partner.partnerId,
      status: 'active',
    });
    for (const [status, code] of [
      ['not_allocated', 'PARTNER_VA_NOT_ALLOCATED'],
      ['activating', 'PARTNER_VA_ACTIVATING'],
      ['suspended', 'PARTNER_VA_SUSPENDED'],
    ]) {
      await ops(['kes-account', 'set-status', '--partner', p.partner.partnerId, '--status', status]);
      expectRefusal(await attempt(), 503, code);
    }
    await ops(['kes-account', 'set-status', '--partner', p.partner.partnerId, '--status', 'active']);
    const fresh = await quote(p.http, 'buy', { kesAmount: '100.00' });
    expect((await buy(p, { quoteId: fresh.quoteId, partnerReference: 'switch' })).status).toBe(202);
  });
});

const hash = () => randomBytes(32).toString('hex');

async function sellPartner(extraArgs: string[] = []): Promise<OrderPartner & { payoutId: string }> {
  const p = await orderPartner(extraArgs);
  const { id } = await ops<{ id: string }>([
    'payout-destination',
    'add',
    '--partner',
    p.partner.partnerId,
    '--account-number',
    '254712345678',
    '--account-name',
    'Test Payee',
  ]);
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
  /** Made before the tests, so its sendBefore passes while they run rather than in its own test. */
  let unfunded: Promise<{ p: OrderPartner & { payoutId: string }; order: Record<string, any> }>;

  beforeAll(() => {
    unfunded = started(
      (async () => {
        const p = await sellPartner();
        return { p, order: await newSell(p) };
      })(),
    );
  });

  it('answers awaiting_usdt with the permanent deposit address and sendBefore', async () => {
    // fee 50 bps: 10 USDT at 128.0000 → 1280.00, fee 6.40, total 1273.60.
    const p = await sellPartner();
    const q = await quote(p.http, 'sell', { usdtAmount: '10.000000' });
    const created = await sell(p, { quoteId: q.quoteId, partnerReference: 'sell-1', payoutAccountId: p.payoutId });
    expect(created.status).toBe(202);
    expect(created.body).toMatchObject({
      status: 'awaiting_usdt',
      kesAmount: '1280.00',
      usdtAmount: '10.000000',
      rate: '128.0000',
      kesTotalAmount: '1273.60',
      fee: { kesAmount: '6.40', currency: 'KES', percentBps: 50 },
      depositAddress: p.partner.usdtDepositAddress,
      chain: 'tron',
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
    expectRefusal(
      await sell(p, { quoteId: randomUUID(), partnerReference: 'x', payoutAccountId: p.payoutId }),
      404,
      'QUOTE_NOT_FOUND',
    );
    expectRefusal(
      await sell(p, { quoteId: q.quoteId, partnerReference: 'x', payoutAccountId: randomUUID() }),
      404,
      'PAYOUT_ACCOUNT_NOT_FOUND',
    );
    const buyQuote = await quote(p.http, 'buy', { kesAmount: '100.00' });
    expectRefusal(
      await sell(p, { quoteId: buyQuote.quoteId, partnerReference: 'x', payoutAccountId: p.payoutId }),
      409,
      'QUOTE_SIDE_MISMATCH',
    );
    await ops(['payout-destination', 'set-status', '--id', p.payoutId, '--status', 'frozen']);
    expectRefusal(
      await sell(p, { quoteId: q.quoteId, partnerReference: 'x', payoutAccountId: p.payoutId }),
      409,
      'PAYOUT_ACCOUNT_NOT_PAYABLE',
    );

    const noAddress = await createTestPartner({ extraArgs: ['--deposit-address', 'none'] });
    const http = new PartnerHttpClient(noAddress);
    await http.post('/v1/sandbox/rates', { bid: '128.0000', ask: '130.0000' });
    const q2 = await quote(http, 'sell', { usdtAmount: '1.000000' });
    const refused = await http.post('/v1/orders/sell', {
      quoteId: q2.quoteId,
      partnerReference: 'x',
      payoutAccountId: randomUUID(),
    });
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
    await orderUntil(p.http, byHash.orderId, 'settled');
    const events = await orderEvents(pools.trading, byHash.orderId);
    expect(events.map((event) => event.type)).toEqual(['order.funds_confirmed', 'order.settled']);
    expect(events[1].data).toEqual({
      orderId: byHash.orderId,
      partnerReference: byHash.partnerReference,
      side: 'sell',
      status: 'settled',
      kesAmount: '1280.00',
      feeKesAmount: '6.40',
      kesTotalAmount: '1273.60',
      usdtAmount: '10.000000',
      rate: '128.0000',
    });

    const late = await newSell(p);
    const lateHash = hash();
    // The partner has an order without a hash: the ledger holds the deposit for attribution.
    const held = await p.http.post('/v1/sandbox/usdt-deposits', { txHash: lateHash, usdtAmount: '10.000000' });
    expect(held.status).toBe(201);
    const attached = await attach(p.http, late.orderId, lateHash);
    expect(attached.status).toBe(200);
    expect(attached.body.status).toBe('funds_reserved');
    await orderUntil(p.http, late.orderId, 'settled');

    const short = await newSell(p);
    const shortHash = hash();
    await attach(p.http, short.orderId, shortHash);
    await p.http.post('/v1/sandbox/usdt-deposits', { txHash: shortHash, usdtAmount: '9.999999' });
    await orderUntil(p.http, short.orderId, 'rejected');
    expect((await orderEvents(pools.trading, short.orderId)).map((event) => event.type)).toEqual(['order.rejected']);
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

  it('lets no other partner squat a hash: the owner still attaches it and its order settles, attached first or held first', async () => {
    const [owner, squatter] = await Promise.all([sellPartner(), sellPartner()]);
    const ownerOrder = await newSell(owner);
    const squatterOrder = await newSell(squatter);
    const txHash = hash();
    // The squatter names the owner's hash first: accepted for its own order, and harmless.
    expect((await attach(squatter.http, squatterOrder.orderId, txHash)).status).toBe(200);
    expect((await attach(owner.http, ownerOrder.orderId, txHash)).status).toBe(200);
    expect((await owner.http.post('/v1/sandbox/usdt-deposits', { txHash, usdtAmount: '10.000000' })).status).toBe(201);
    await orderUntil(owner.http, ownerOrder.orderId, 'settled');
    const squatted = await squatter.http.sdk.orders.get(squatterOrder.orderId);
    expect(squatted).toMatchObject({ status: expect.stringMatching(/^(awaiting_usdt|expired)$/), txHash });
    expect(await orderEvents(pools.trading, squatterOrder.orderId)).not.toContainEqual(
      expect.objectContaining({ type: 'order.funds_confirmed' }),
    );

    // The deposit arrives before any hash (held for the owner's open order); the squatter's attach cannot claim it.
    const heldOrder = await newSell(owner);
    const lateSquatter = await newSell(squatter);
    const heldHash = hash();
    const held = await owner.http.post('/v1/sandbox/usdt-deposits', { txHash: heldHash, usdtAmount: '10.000000' });
    expect(held.body.status).toBe('held_for_attribution');
    const squat = await attach(squatter.http, lateSquatter.orderId, heldHash);
    expect(squat.status).toBe(200);
    expect(squat.body.status).toBe('awaiting_usdt');
    const claimed = await attach(owner.http, heldOrder.orderId, heldHash);
    expect(claimed.status).toBe(200);
    expect(claimed.body.status).toBe('funds_reserved');
    await orderUntil(owner.http, heldOrder.orderId, 'settled');
    expect((await balances(squatter.http)).USDT.available).toBe('0.000000');
  });

  it('expires an unfunded order at sendBefore with order.expired and refuses a late hash', async () => {
    const { p, order } = await unfunded;
    const expired = await orderUntil(p.http, order.orderId, 'expired', 20_000);
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(expired.sendBefore));
    const events = await orderEvents(pools.trading, order.orderId);
    expect(events.map((event) => event.type)).toEqual(['order.expired']);
    expect(events[0].data).toMatchObject({
      orderId: order.orderId,
      side: 'sell',
      status: 'expired',
      kesTotalAmount: '1273.60',
    });
    expectRefusal(await attach(p.http, order.orderId, hash()), 409, 'ORDER_NOT_AWAITING_USDT');
    const caps = await pools.trading.query('SELECT released_at FROM cap_usages WHERE usage_id = $1', [order.orderId]);
    expect(caps.rows[0].released_at).not.toBeNull();
  });

  it('credits an excess deposit to the USDT balance, and rejects the order when the bank refuses the payout', async () => {
    const p = await sellPartner();
    const order = await newSell(p);
    const txHash = hash();
    await attach(p.http, order.orderId, txHash);
    await p.http.post('/v1/sandbox/usdt-deposits', { txHash, usdtAmount: '10.500000' });
    await orderUntil(p.http, order.orderId, 'settled');
    expect((await balances(p.http)).USDT.available).toBe('0.500000');

    const { id } = await ops<{ id: string }>([
      'payout-destination',
      'add',
      '--partner',
      p.partner.partnerId,
      '--account-number',
      '254712340000',
      '--account-name',
      'Refused',
    ]);
    const q = await quote(p.http, 'sell', { usdtAmount: '10.000000' });
    const refusedPayout = await sell(p, {
      quoteId: q.quoteId,
      partnerReference: 'refused-payout',
      payoutAccountId: id,
    });
    expect(refusedPayout.status).toBe(202);
    const refusedHash = hash();
    await attach(p.http, refusedPayout.body.orderId, refusedHash);
    await p.http.post('/v1/sandbox/usdt-deposits', { txHash: refusedHash, usdtAmount: '10.000000' });
    await orderUntil(p.http, refusedPayout.body.orderId, 'rejected');
    expect((await orderEvents(pools.trading, refusedPayout.body.orderId)).map((event) => event.type)).toEqual([
      'order.funds_confirmed',
      'order.rejected',
    ]);
    // The USDT stays with the service (suspense), not back on the balance.
    expect((await balances(p.http)).USDT.available).toBe('0.500000');
  });

  it('balance mode: collects the USDT from the custodial balance at create, and refuses what it cannot collect', async () => {
    const p = await sellPartner(['--sell-mode', 'balance']);
    // No sell order awaits a hash: the deposit tops up the USDT balance.
    expect((await p.http.post('/v1/sandbox/usdt-deposits', { txHash: hash(), usdtAmount: '15.000000' })).status).toBe(
      201,
    );
    const q = await quote(p.http, 'sell', { usdtAmount: '10.000000' });
    const created = await sell(p, { quoteId: q.quoteId, partnerReference: 'bal', payoutAccountId: p.payoutId });
    expect(created.status).toBe(202);
    expect(created.body).toMatchObject({
      status: 'funds_reserved',
      usdtAmount: '10.000000',
      kesTotalAmount: '1273.60',
    });
    expect(created.body.depositAddress).toBeUndefined();
    await orderUntil(p.http, created.body.orderId, 'settled');
    expect((await orderEvents(pools.trading, created.body.orderId)).map((event) => event.type)).toEqual([
      'order.funds_confirmed',
      'order.settled',
    ]);
    expect((await balances(p.http)).USDT).toMatchObject({ available: '5.000000', held: '0.000000' });

    const poor = await quote(p.http, 'sell', { usdtAmount: '6.000000' });
    expectRefusal(
      await sell(p, { quoteId: poor.quoteId, partnerReference: 'poor', payoutAccountId: p.payoutId }),
      422,
      'INSUFFICIENT_USDT_BALANCE',
    );
    const row = await orderByReference(pools.trading, p.partner.partnerId, 'poor');
    expect(row.status).toBe('rejected');
    expectRefusal(
      await sell(p, { quoteId: poor.quoteId, partnerReference: 'poor', payoutAccountId: p.payoutId }),
      422,
      'INSUFFICIENT_USDT_BALANCE',
    );
    const failed = await quote(p.http, 'sell', { usdtAmount: '1.000013' });
    expectRefusal(
      await sell(p, { quoteId: failed.quoteId, partnerReference: 'f13', payoutAccountId: p.payoutId }),
      503,
      'USDT_COLLECTION_FAILED',
    );
    const ownership = await quote(p.http, 'sell', { usdtAmount: '1.000014' });
    expectRefusal(
      await sell(p, { quoteId: ownership.quoteId, partnerReference: 'f14', payoutAccountId: p.payoutId }),
      503,
      'WALLET_OWNERSHIP_CHECK_FAILED',
    );
    expect((await balances(p.http)).USDT).toMatchObject({ available: '5.000000', held: '0.000000' });
  });
});
