// Proves a sell order's KES proceeds are paid when payouts was away while the
// order was funded, and paid once. Payouts pulls due proceeds from trading
// (trading never calls payouts), so while payouts is down nothing happens to
// the order: it stays funds_reserved with order.funds_confirmed only, and no
// instruction exists. Once payouts is back its sell-proceeds worker claims the
// order, makes the instruction (id = order id), and reports the bank's answer:
// the order settles with exactly one order.settled, one instruction, the USDT
// hold posted, and the ledger reconciles. Runs in the serial faults project (it
// kills a service).
import { randomBytes, randomUUID } from 'node:crypto';
import { createTestPartner, PartnerHttpClient, runOps, stackInfra, waitFor } from '@platform/testing';
import { sleep } from '../test/support';
import { killEveryReplica, killStand } from './kill-support';
import { expectLedgerReconciles } from './money-support';

const RECOVERY_TIMEOUT_MS = 60_000;
/** How long payouts stays away with the order funded: several of its poll intervals and trading's scheduler passes. */
const PAYOUTS_AWAY_MS = 3_000;
/** Time a second, unwanted order.settled would have had to be written. */
const DUPLICATE_GRACE_MS = 2_000;

const stand = killStand();

async function balanceSellPartner(): Promise<{ http: PartnerHttpClient; partnerId: string; payoutId: string }> {
  const partner = await createTestPartner({ extraArgs: ['--sell-mode', 'balance'], rateLimitPerMinute: 1000 });
  const http = new PartnerHttpClient(partner);
  await http.sdk.sandbox.setRate({ bid: '128.0000', ask: '130.0000' });
  const { id } = await runOps<{ id: string }>([
    'payout-destination',
    'add',
    '--partner',
    partner.partnerId,
    '--account-number',
    '254712345678',
    '--account-name',
    'Test Payee',
  ]);
  const deposit = await http.post('/v1/sandbox/usdt-deposits', {
    txHash: randomBytes(32).toString('hex'),
    usdtAmount: '15.000000',
  });
  expect(deposit.status).toBe(201);
  return { http, partnerId: partner.partnerId, payoutId: id };
}

async function orderEventTypes(orderId: string): Promise<string[]> {
  const rows = await stand.pools.trading.query(
    `SELECT payload->>'type' AS type FROM outbox WHERE payload->'data'->>'orderId' = $1 ORDER BY created_at, type`,
    [orderId],
  );
  return rows.rows.map((row) => row.type as string);
}

describe('sell proceeds while payouts is away', () => {
  it('pays the proceeds once payouts is back, exactly once', async () => {
    const p = await balanceSellPartner();
    await killEveryReplica('payouts');

    const quote = await p.http.sdk.quotes.create({ side: 'sell', usdtAmount: '10.000000' });
    const created = await p.http.post('/v1/orders/sell', {
      quoteId: quote.quoteId,
      partnerReference: `away-${randomUUID()}`,
      payoutAccountId: p.payoutId,
    });
    expect(created.status).toBe(202);
    expect(created.body.status).toBe('funds_reserved');
    const orderId = created.body.orderId as string;

    await sleep(PAYOUTS_AWAY_MS);
    expect((await p.http.get(`/v1/orders/${orderId}`)).body.status).toBe('funds_reserved');
    expect(await orderEventTypes(orderId)).toEqual(['order.funds_confirmed']);

    await stackInfra.startServices();
    const settled = await waitFor(
      async () => {
        const read = await p.http.get(`/v1/orders/${orderId}`);
        return read.body.status === 'settled' ? read.body : undefined;
      },
      { timeoutMs: RECOVERY_TIMEOUT_MS, what: 'the sell order settled after payouts came back' },
    );
    expect(settled.kesTotalAmount).toBe('1273.60');
    await sleep(DUPLICATE_GRACE_MS);
    expect(await orderEventTypes(orderId)).toEqual(['order.funds_confirmed', 'order.settled']);
    const instructions = await stand.pools.payouts.query(
      'SELECT instruction_id, status, amount_kes::text AS amount FROM payout_instructions WHERE order_id = $1',
      [orderId],
    );
    expect(instructions.rows).toEqual([{ instruction_id: orderId, status: 'settled', amount: '1273.60' }]);
    const balances = (await p.http.get('/v1/balances')).body as Array<{
      currency: string;
      available: string;
      held: string;
    }>;
    expect(balances.find((balance) => balance.currency === 'USDT')).toMatchObject({
      available: '5.000000',
      held: '0.000000',
    });
    await expectLedgerReconciles(stand.pools);
  });
});
