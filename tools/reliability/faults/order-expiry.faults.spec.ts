// Proves that an order's window survives a trading crash: a deposit-mode sell
// order is created, trading is killed with SIGKILL before its sendBefore and
// stays down past it (reads answer a clean 503 meanwhile), then restarts. The
// restarted service's durable scheduler expires the order (status `expired`),
// releases its share of the daily cap, and enqueues exactly one order.expired
// carrying its documented data; a late hash is refused. Runs in the serial
// faults project: it kills a service of the shared test stack.
import { randomBytes, randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { createTestPartner, loadTestStack, PartnerHttpClient, runOps, stackInfra, waitFor } from '@platform/testing';
import { expectEnvelope, sleep } from '../test/support';
import { killEveryReplica } from './kill-support';

const RATE_LIMIT_PER_MINUTE = 100_000;
const RECOVERY_TIMEOUT_MS = 60_000;
const POLL_MS = 250;
/** Beyond sendBefore while trading is down, so the window certainly closed with nobody to see it. */
const PAST_WINDOW_MS = 1_000;
const BID = '128.0000';

let pool: Pool;

beforeAll(() => {
  pool = new Pool({ connectionString: loadTestStack().databases.trading, max: 1 });
});

afterAll(async () => {
  await stackInfra.startServices();
  await pool?.end();
});

describe('trading killed while a sell order waits for its USDT', () => {
  it('expires the order once after restart, with order.expired and the cap released', async () => {
    const partner = await createTestPartner({ rateLimitPerMinute: RATE_LIMIT_PER_MINUTE });
    const http = new PartnerHttpClient(partner);
    expect((await http.post('/v1/sandbox/rates', { bid: BID, ask: '130.0000' })).status).toBe(200);
    const destination = await runOps<{ id: string }>([
      'payout-destination',
      'add',
      '--partner',
      partner.partnerId,
      '--account-number',
      '254712345678',
      '--account-name',
      'Fault Payee',
    ]);
    const quote = await http.post('/v1/quotes', { side: 'sell', usdtAmount: '10.000000' });
    expect(quote.status).toBe(201);
    const partnerReference = randomUUID();
    const created = await http.post('/v1/orders/sell', {
      quoteId: quote.body.quoteId,
      partnerReference,
      payoutAccountId: destination.id,
    });
    expect(created.status).toBe(202);
    expect(created.body.status).toBe('awaiting_usdt');
    const order = created.body;

    await killEveryReplica('trading');
    const whileDown = await http.get(`/v1/orders/${order.orderId}`);
    expect(whileDown.status).toBe(503);
    expectEnvelope(whileDown, 'GET order while trading is down');
    await sleep(Math.max(0, Date.parse(order.sendBefore) - Date.now()) + PAST_WINDOW_MS);
    const stillOpen = await pool.query('SELECT status FROM orders WHERE order_id = $1', [order.orderId]);
    expect(stillOpen.rows[0].status).toBe('awaiting_usdt');

    await stackInfra.startServices();
    const expired = await waitFor(
      async () => {
        const read = await http.get(`/v1/orders/${order.orderId}`);
        return read.status === 200 && read.body.status === 'expired' ? read.body : undefined;
      },
      { timeoutMs: RECOVERY_TIMEOUT_MS, intervalMs: POLL_MS, what: 'the restarted trading to expire the order' },
    );
    expect(expired.orderId).toBe(order.orderId);

    const events = await pool.query(`SELECT payload FROM outbox WHERE payload->'data'->>'orderId' = $1`, [
      order.orderId,
    ]);
    expect(events.rows.map((row) => row.payload.type)).toEqual(['order.expired']);
    expect(events.rows[0].payload.data).toEqual({
      orderId: order.orderId,
      partnerReference,
      side: 'sell',
      status: 'expired',
      kesAmount: order.kesAmount,
      feeKesAmount: order.fee.kesAmount,
      kesTotalAmount: order.kesTotalAmount,
      usdtAmount: order.usdtAmount,
      rate: order.rate,
    });
    const cap = await pool.query('SELECT released_at FROM cap_usages WHERE usage_id = $1', [order.orderId]);
    expect(cap.rows[0].released_at).not.toBeNull();
    const late = await http.request('PATCH', `/v1/orders/${order.orderId}`, {
      txHash: randomBytes(32).toString('hex'),
    });
    expect({ status: late.status, message: late.body.message }).toEqual({
      status: 409,
      message: 'ORDER_NOT_AWAITING_USDT',
    });
  });
});
