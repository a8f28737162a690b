// Proves pay-in buy orders (a partner configured `--buy-mode pay_in`) end to
// end through the gateway on the real test stack: the 202 awaiting_payment
// shape (paymentReference, paymentInstructions from the partner's paybill,
// payBefore, walletId), the payment made with the sandbox kes-credits helper
// landing in the partner's KES account (never suspense) and matched by the
// scheduler (funds_confirmed then settled events whose data agrees with GET,
// the payment block, USDT delivered out of the treasury, not to the custodial
// balance), an overpayment (excess stays in the balance), expiry unpaid, a
// short payment and a late payment (expired; the money stays in the balance;
// cap released), a wallet revoked before delivery (rejected, hold released),
// replay by partnerReference, and the create refusals (request fields, wallet
// unknown / foreign / not yet active, caps, quote rules, a debit-first partner
// sending pay-in fields). The ledger check after npm test proves every entry balanced.
import { randomUUID } from 'node:crypto';
import { Big, formatAmount } from '@platform/money';
import { HttpResult, partnerWallet, waitFor } from '@platform/testing';
import {
  balances,
  expectRefusal,
  OrderPartner,
  orderEvents,
  orderPartner,
  orderUntil,
  quote,
  useOrderSpecPools,
} from './order-support';

const PAY_IN = ['--buy-mode', 'pay_in'];
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** The test stack's pay window is 8 s; expiry is waited for with room to spare. */
const EXPIRY_WAIT_MS = 25_000;

const pools = useOrderSpecPools();

async function payInPartner(extraArgs: string[] = []): Promise<OrderPartner & { walletId: string }> {
  const p = await orderPartner([...PAY_IN, ...extraArgs]);
  expect(
    (await p.http.post('/v1/admins', { email: `ops-${randomUUID().slice(0, 8)}@example.com`, name: 'Ops' })).status,
  ).toBe(201);
  return { ...p, walletId: await partnerWallet(p.http) };
}

function buy(p: OrderPartner, body: Record<string, unknown>) {
  return p.http.post('/v1/orders/buy', body);
}

/** orders.int.spec.ts flips the platform-wide switches while this file runs: a create they refuse is made again once they are back. */
const SWITCH_REFUSALS = [
  'KILL_SWITCH_ENGAGED',
  'SWAPS_DISABLED',
  'TREASURY_ACCOUNT_UNAVAILABLE',
  'TREASURY_ACCOUNT_NOT_REGISTERED',
];
const SWITCH_WAIT_MS = 30_000;
const SWITCH_RETRY_DELAY_MS = 250;

async function attempt(
  p: OrderPartner,
  makeBody: () => Promise<Record<string, unknown>>,
): Promise<{ result: HttpResult; quoteId: string }> {
  const deadline = Date.now() + SWITCH_WAIT_MS;
  for (;;) {
    const body = await makeBody();
    const result = await buy(p, body);
    const switched = result.status === 503 && SWITCH_REFUSALS.includes(result.body?.message);
    if (!switched || Date.now() > deadline) return { result, quoteId: body.quoteId as string };
    await new Promise((resolve) => setTimeout(resolve, SWITCH_RETRY_DELAY_MS));
  }
}

/** A buy on a fresh quote of this side and amount (a new quote each attempt: a quote lives 5 s on the test stack). */
async function buyFresh(
  p: OrderPartner,
  amount: { kesAmount: string },
  body: Record<string, unknown>,
  side: 'buy' | 'sell' = 'buy',
) {
  return attempt(p, async () => ({ quoteId: (await quote(p.http, side, amount)).quoteId, ...body }));
}

async function consumed(quoteIds: string[]): Promise<number> {
  const { rows } = await pools.trading.query(
    'SELECT count(*)::int AS n FROM quotes WHERE quote_id = ANY($1::uuid[]) AND consumed_at IS NOT NULL',
    [quoteIds],
  );
  return rows[0].n;
}

async function pay(p: OrderPartner, amount: string, reference: string): Promise<void> {
  const credit = await p.http.post('/v1/sandbox/kes-credits', { amount, reference });
  if (credit.status !== 201) throw new Error(`payment failed: ${credit.status} ${JSON.stringify(credit.body)}`);
}

type Balances = Record<string, { available: string; held: string }>;

/** How much the KES available balance grew, as a 2-decimal string. */
function kesDelta(before: Balances, after: Balances): string {
  return formatAmount(new Big(after.KES.available).minus(before.KES.available), 'KES');
}

async function capReleased(orderId: string): Promise<boolean> {
  const { rows } = await pools.trading.query('SELECT released_at FROM cap_usages WHERE usage_id = $1', [orderId]);
  return rows[0].released_at !== null;
}

describe('POST /v1/orders/buy (pay-in)', () => {
  let p: OrderPartner & { walletId: string };

  beforeAll(async () => {
    p = await payInPartner();
  });

  it('answers 202 awaiting_payment with instructions, then settles once paid, delivering to the wallet', async () => {
    // fee 50 bps: 1000.00 at 130.0000 → 7.692307 USDT, fee 5.00, total 1005.00.
    const { result: created } = await buyFresh(
      p,
      { kesAmount: '1000.00' },
      { partnerReference: 'pay-1', walletId: p.walletId, paymentRail: 'mobile_money', expectedUsdtAmount: '7.692307' },
    );
    expect(created.status).toBe(202);
    const funding = (await p.http.get('/v1/funding')).body.kes[0];
    const reference = created.body.paymentReference as string;
    expect(reference).toMatch(/^9\d{11}$/);
    expect(reference).not.toBe(funding.accountReference);
    expect(created.body).toMatchObject({
      status: 'awaiting_payment',
      side: 'buy',
      kesAmount: '1000.00',
      usdtAmount: '7.692307',
      rate: '130.0000',
      kesTotalAmount: '1005.00',
      fee: { kesAmount: '5.00', currency: 'KES', percentBps: 50, flatKesAmount: '0.00', capKesAmount: null },
      walletId: p.walletId,
      paymentInstructions: {
        rail: 'mobile_money_paybill',
        paybill: funding.paybill,
        payTo: funding.paybill,
        beneficiaryName: funding.beneficiaryName,
        reference,
        kesAmount: '1005.00',
        currency: 'KES',
        payBefore: created.body.payBefore,
      },
    });
    expect(created.body.payBefore).toMatch(ISO_MS);
    expect(created.body.kesDebit).toBeUndefined();
    expect(created.body.payment).toBeUndefined();
    const orderId = created.body.orderId as string;
    expect((await p.http.get(`/v1/orders/${orderId}`)).body).toEqual(created.body);

    const before = await balances(p.http);
    await pay(p, '1005.00', reference);
    const settled = await orderUntil(p.http, orderId, 'settled');
    expect(settled.kesDebit).toEqual({ status: 'debited' });
    expect(settled.payment).toEqual({
      railReference: expect.stringMatching(/^SBX[0-9A-F]{10}$/),
      bankTransactionId: expect.stringMatching(/^SBX-/),
      matchedAt: expect.stringMatching(ISO_MS),
    });
    // The money passed through the partner's KES account; the USDT went to the wallet, not the custodial balance.
    expect(await balances(p.http)).toMatchObject({
      KES: { available: before.KES.available, held: '0.00' },
      USDT: { available: before.USDT.available },
    });
    const { rows } = await pools.ledger.query(
      'SELECT c.account_id, c.payment_reference, a.partner_id FROM kes_credits c JOIN accounts a ON a.id = c.account_id WHERE c.payment_reference = $1',
      [reference],
    );
    const kesAccountId = ((await balances(p.http)).KES as unknown as { accountId: string }).accountId;
    expect(rows).toEqual([{ account_id: kesAccountId, payment_reference: reference, partner_id: p.partner.partnerId }]);
    const events = await orderEvents(pools.trading, orderId);
    expect(events.map((event) => event.type)).toEqual(['order.funds_confirmed', 'order.settled']);
    const data = {
      orderId,
      partnerReference: 'pay-1',
      side: 'buy',
      kesAmount: '1000.00',
      feeKesAmount: '5.00',
      kesTotalAmount: '1005.00',
      usdtAmount: '7.692307',
      rate: '130.0000',
    };
    expect(events[0].data).toEqual({ ...data, status: 'funds_reserved' });
    expect(events[1].data).toEqual({ ...data, status: 'settled' });
  });

  it('settles an overpayment; the excess stays in the KES balance', async () => {
    const { result: created } = await buyFresh(
      p,
      { kesAmount: '100.00' },
      { partnerReference: 'pay-over', walletId: p.walletId },
    );
    expect(created.status).toBe(202);
    const before = await balances(p.http);
    await pay(p, '150.00', created.body.paymentReference);
    await orderUntil(p.http, created.body.orderId, 'settled');
    // 100.00 + 0.50 fee = 100.50 taken; 49.50 left.
    expect(kesDelta(before, await balances(p.http))).toBe('49.50');
  });

  it('returns the original order for the same partnerReference without consuming the repeat quote', async () => {
    const { result: created } = await buyFresh(
      p,
      { kesAmount: '50.00' },
      { partnerReference: 'pay-replay', walletId: p.walletId },
    );
    expect(created.status).toBe(202);
    const repeat = await quote(p.http, 'buy', { kesAmount: '50.00' });
    const replays = await Promise.all(
      [1, 2].map(() => buy(p, { quoteId: repeat.quoteId, partnerReference: 'pay-replay', walletId: p.walletId })),
    );
    for (const replay of replays)
      expect({ status: replay.status, body: replay.body }).toEqual({ status: 202, body: created.body });
    expect(await consumed([repeat.quoteId])).toBe(0);
    const { result: other } = await buyFresh(
      p,
      { kesAmount: '50.00' },
      { partnerReference: 'pay-replay-2', walletId: p.walletId },
    );
    expect(other.status).toBe(202);
    expect(other.body.paymentReference).not.toBe(created.body.paymentReference);
  });

  it('expires unpaid and late-paid orders at payBefore; a late payment stays in the KES balance and the cap is released', async () => {
    const orders: Record<string, any>[] = [];
    for (const name of ['unpaid', 'late']) {
      const { result: created } = await buyFresh(
        p,
        { kesAmount: '200.00' },
        { partnerReference: `pay-${name}`, walletId: p.walletId },
      );
      expect(created.status).toBe(202);
      orders.push(created.body);
    }
    const [unpaid, late] = orders;
    await Promise.all(orders.map((order) => orderUntil(p.http, order.orderId, 'expired', EXPIRY_WAIT_MS)));
    const before = await balances(p.http);
    await pay(p, '201.00', late.paymentReference);
    await waitFor(async () => (kesDelta(before, await balances(p.http)) === '201.00' ? true : undefined), {
      timeoutMs: 10_000,
      what: 'late payment in the balance',
    });
    // Give the scheduler a few polls: the late payment must not revive the order.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const after = await p.http.get(`/v1/orders/${late.orderId}`);
    expect(after.body.status).toBe('expired');
    expect(after.body.payment).toBeUndefined();
    for (const order of [unpaid, late]) {
      expect((await orderEvents(pools.trading, order.orderId)).map((event) => event.type)).toEqual(['order.expired']);
      expect(await capReleased(order.orderId)).toBe(true);
    }
  }, 60_000);

  it('a short payment funds nothing: the order expires and the payment stays in the balance', async () => {
    const { result: created } = await buyFresh(
      p,
      { kesAmount: '300.00' },
      { partnerReference: 'pay-short', walletId: p.walletId },
    );
    expect(created.body.kesTotalAmount).toBe('301.50');
    const before = await balances(p.http);
    await pay(p, '301.49', created.body.paymentReference);
    await pay(p, '0.01', created.body.paymentReference); // payments never add up
    const expired = await orderUntil(p.http, created.body.orderId, 'expired', EXPIRY_WAIT_MS);
    expect(expired.payment).toBeUndefined();
    expect((await orderEvents(pools.trading, created.body.orderId)).map((event) => event.type)).toEqual([
      'order.expired',
    ]);
    expect(await capReleased(created.body.orderId)).toBe(true);
    expect(kesDelta(before, await balances(p.http))).toBe('301.50');
  }, 60_000);

  it('rejects when the wallet is revoked before delivery: hold released, the payment stays in the balance', async () => {
    const walletId = await partnerWallet(p.http);
    const { result: created } = await buyFresh(
      p,
      { kesAmount: '400.00' },
      { partnerReference: 'pay-revoked', walletId },
    );
    expect(created.status).toBe(202);
    expect((await p.http.request('DELETE', `/v1/wallets/${walletId}`)).status).toBe(204);
    const before = await balances(p.http);
    await pay(p, '402.00', created.body.paymentReference);
    const rejected = await orderUntil(p.http, created.body.orderId, 'rejected');
    expect(rejected.kesDebit).toEqual({ status: 'released' });
    expect(rejected.payment.bankTransactionId).toMatch(/^SBX-/);
    const events = await orderEvents(pools.trading, created.body.orderId);
    expect(events.map((event) => event.type)).toEqual(['order.funds_confirmed', 'order.rejected']);
    expect(events[1].data).toMatchObject({ status: 'rejected', kesTotalAmount: '402.00' });
    expect(await capReleased(created.body.orderId)).toBe(true);
    const after = await balances(p.http);
    expect(after.KES.held).toBe('0.00');
    expect(kesDelta(before, after)).toBe('402.00');
  });
});

describe('POST /v1/orders/buy (pay-in) refusals', () => {
  let p: OrderPartner & { walletId: string };

  beforeAll(async () => {
    p = await payInPartner(['--per-order-cap-kes', '1500.00', '--daily-cap-kes', '2000.00']);
  });

  it('refuses bad request fields, unknown, foreign and not yet active wallets, consuming nothing', async () => {
    const ten = { kesAmount: '10.00' };
    const stranger = await payInPartner();
    const pending = await partnerWallet(p.http, 'registered');
    const refusals: [Record<string, unknown>, number, string][] = [
      [{ partnerReference: 'r-1' }, 400, 'Validation failed on: walletId'],
      [
        { partnerReference: 'r-2', walletId: p.walletId, paymentRail: 'bank' },
        400,
        'Validation failed on: paymentRail',
      ],
      [{ partnerReference: 'r-3', walletId: randomUUID() }, 404, 'WALLET_NOT_FOUND'],
      [{ partnerReference: 'r-4', walletId: 'not-a-uuid' }, 404, 'WALLET_NOT_FOUND'],
      [{ partnerReference: 'r-5', walletId: stranger.walletId }, 404, 'WALLET_NOT_FOUND'],
      [{ partnerReference: 'r-6', walletId: pending }, 503, 'WALLET_OWNERSHIP_CHECK_FAILED'],
    ];
    const quoteIds: string[] = [];
    for (const [body, status, message] of refusals) {
      const { result, quoteId } = await buyFresh(p, ten, body);
      expectRefusal(result, status, message);
      quoteIds.push(quoteId);
    }
    // Nothing was consumed by a refusal.
    expect(await consumed(quoteIds)).toBe(0);
    const made = await buyFresh(p, ten, { partnerReference: 'r-7', walletId: p.walletId });
    expect(made.result.status).toBe(202);
    expectRefusal(
      (await attempt(p, async () => ({ quoteId: made.quoteId, partnerReference: 'r-8', walletId: p.walletId }))).result,
      409,
      'QUOTE_EXPIRED_OR_CONSUMED',
    );
  });

  it('applies the quote rules and the caps', async () => {
    const mine = { walletId: p.walletId };
    expectRefusal(
      (await buyFresh(p, { kesAmount: '10.00' }, { partnerReference: 'c-1', ...mine }, 'sell')).result,
      409,
      'QUOTE_SIDE_MISMATCH',
    );
    expectRefusal(await buy(p, { quoteId: randomUUID(), partnerReference: 'c-2', ...mine }), 404, 'QUOTE_NOT_FOUND');
    expectRefusal(
      (await buyFresh(p, { kesAmount: '10.00' }, { partnerReference: 'c-3', ...mine, expectedUsdtAmount: '1.000000' }))
        .result,
      409,
      'EXPECTED_AMOUNT_MISMATCH',
    );
    expectRefusal(
      (await buyFresh(p, { kesAmount: '1500.01' }, { partnerReference: 'c-4', ...mine })).result,
      422,
      'ORDER_EXCEEDS_PER_ORDER_CAP',
    );
    expect((await buyFresh(p, { kesAmount: '1500.00' }, { partnerReference: 'c-5', ...mine })).result.status).toBe(202);
    expectRefusal(
      (await buyFresh(p, { kesAmount: '500.00' }, { partnerReference: 'c-6', ...mine })).result,
      422,
      'ORDER_EXCEEDS_DAILY_CAP',
    );
  });

  it('refuses pay-in fields from a debit-first partner', async () => {
    const debitFirst = await orderPartner();
    const { result } = await buyFresh(
      debitFirst,
      { kesAmount: '10.00' },
      { partnerReference: 'd-1', walletId: randomUUID() },
    );
    expectRefusal(result, 400, 'Validation failed on: walletId');
  });
});
