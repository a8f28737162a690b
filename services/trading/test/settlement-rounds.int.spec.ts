// Proves that settling debit-first buys in rounds (the orders of one scheduler
// claim posted together and moved to settled in one statement) still settles
// every order exactly once: eight buys placed at once by one partner all end
// settled, each with one funds_confirmed and one settled event, each hold
// posted by exactly one ledger entry, and the partner's balances moved by
// exactly eight orders' worth (nothing held, nothing posted twice), with the
// ledger balanced. The orders are created together so their settlement timers
// fall due together and one claim carries several of them.
import { Pool } from 'pg';
import { Big } from '@platform/money';
import { loadTestStack } from '@platform/testing';
import { balances, fundKes, ops, orderEvents, orderPartner, orderUntil, quote, tradingPool } from './order-support';

const ORDERS = 8;

let trading: Pool;
let ledgerDb: Pool;

beforeAll(() => {
  trading = tradingPool();
  ledgerDb = new Pool({ connectionString: loadTestStack().databases.ledger, max: 2 });
});

afterAll(async () => {
  await Promise.all([trading.end(), ledgerDb.end()]);
});

it('settles buys created together exactly once each: one entry per hold, one settled event per order', async () => {
  const p = await orderPartner();
  await fundKes(p.http, '5000.00');
  const orders = await Promise.all(
    Array.from({ length: ORDERS }, async (_, index) => {
      const q = await quote(p.http, 'buy', { kesAmount: '100.00' });
      const created = await p.http.post('/v1/orders/buy', { quoteId: q.quoteId, partnerReference: `round-${index}` });
      expect(created.status).toBe(202);
      return { orderId: created.body.orderId as string, quote: q };
    }),
  );
  const settled = await Promise.all(orders.map(({ orderId }) => orderUntil(p.http, orderId, 'settled', 60_000)));
  expect(settled).toHaveLength(ORDERS);

  for (const { orderId } of orders) {
    const types = (await orderEvents(trading, orderId)).map((event) => event.type);
    expect(types.sort()).toEqual(['order.funds_confirmed', 'order.settled']);
  }
  const { rows: entries } = await ledgerDb.query(
    `SELECT metadata->>'holdId' AS "holdId", count(*)::int AS entries FROM entries
      WHERE kind = 'order_buy_settlement' AND metadata->>'holdId' = ANY($1) GROUP BY 1`,
    [orders.map(({ orderId }) => orderId)],
  );
  expect(entries).toHaveLength(ORDERS);
  expect(entries.every((row) => row.entries === 1)).toBe(true);
  const { rows: holds } = await ledgerDb.query(
    'SELECT status, count(*)::int AS holds FROM holds WHERE id::text = ANY($1) GROUP BY status',
    [orders.map(({ orderId }) => orderId)],
  );
  expect(holds).toEqual([{ status: 'posted', holds: ORDERS }]);

  const spentKes = orders.reduce((sum, { quote: q }) => sum.plus(q.kesTotalAmount), new Big(0));
  const boughtUsdt = orders.reduce((sum, { quote: q }) => sum.plus(q.usdtAmount), new Big(0));
  const after = await balances(p.http);
  expect(after.KES).toMatchObject({ available: new Big('5000.00').minus(spentKes).toFixed(2), held: '0.00' });
  expect(new Big(after.USDT!.available).eq(boughtUsdt)).toBe(true);
  expect(await ops<{ ok: boolean }>(['ledger', 'check'])).toMatchObject({ ok: true });
}, 120_000);
