// Proves a partner's read of an order, against PostgreSQL: GetOrder's and GetOrders' statements
// select only what the answer shows and whose the order is, and the answer built from them is,
// field for field, the one built from the whole row, for every shape of order (a debit-first
// buy, a pay-in buy with its matched payment, a deposit sell with its hash), with every column
// the read leaves out set, so an answer that came to need one of them fails here.
import { randomUUID } from 'node:crypto';
import { createDataSource, DataSource } from '@platform/persistence';
import { loadTestStack } from '@platform/testing';
import { toOrderMessage } from '../src/grpc/trading-orders.handlers';
import { OrdersRepository } from '../src/persistence/orders.repository';

let db: DataSource;
const inserted: string[] = [];

beforeAll(async () => {
  db = await createDataSource({
    url: loadTestStack().databases.trading ?? '',
    applicationName: 'order-read-spec',
    poolSize: 2,
  }).initialize();
});

afterAll(async () => {
  if (db === undefined) return;
  await db.query('DELETE FROM orders WHERE order_id = ANY($1::uuid[])', [inserted]);
  await db.destroy();
});

type Shape = 'debit_first' | 'pay_in' | 'deposit';

/** An order of `shape` with every column set that its shape allows, the bookkeeping columns included. */
async function order(partnerId: string, shape: Shape): Promise<string> {
  const orderId = randomUUID();
  const sell = shape === 'deposit';
  await db.query(
    `INSERT INTO orders (order_id, partner_id, partner_reference, quote_id, side, funding_mode, status, kes_amount, usdt_amount, rate,
                         fee_kes, fee_bps, fee_flat_kes, fee_cap_kes, kes_total_amount, expires_at, kes_debit_status, debit_outcome,
                         deposit_address, send_before, payout_account_id, tx_hash, deposit_usdt_amount, payout_instruction_id,
                         refusal_code, next_action_at, funds_confirmed_at, completed_at, created_at, wallet_id, payment_reference,
                         paybill, beneficiary_name, pay_before, payment_rail_reference, payment_bank_transaction_id,
                         payment_matched_at, payment_kes_amount)
     VALUES ($1, $2, $3, $4, $5, $6, 'settled', 1234.50, 9.496153, 130.0000,
             2.25, 15, 0.40, $7, $8, now() + interval '30 seconds', $9, 'accepted',
             $10, $11, $12, $13, 9.500000, $14,
             'SOMETHING', now() + interval '5 seconds', now() - interval '1 second', now(), now() - interval '2 seconds', $15, $16,
             $17, $18, $19, 'QK12ABC', 'bank-tx-1',
             $20, 1236.75)`,
    [
      orderId,
      partnerId,
      `read-${orderId}`,
      randomUUID(),
      sell ? 'sell' : 'buy',
      shape,
      sell ? null : '50.00',
      sell ? '1232.25' : '1236.75',
      shape === 'debit_first' ? 'debited' : null,
      sell ? 'TXdepositAddress0000000000000000000' : null,
      sell ? new Date(Date.now() + 3_600_000) : null,
      sell ? randomUUID() : null,
      sell ? randomUUID().replaceAll('-', '').repeat(2) : null,
      sell ? randomUUID() : null,
      shape === 'pay_in' ? randomUUID() : null,
      shape === 'pay_in' ? `9${String(Math.floor(Math.random() * 1e11)).padStart(11, '0')}` : null,
      shape === 'pay_in' ? '400200' : null,
      shape === 'pay_in' ? 'Platform Ltd' : null,
      shape === 'pay_in' ? new Date(Date.now() + 600_000) : null,
      shape === 'pay_in' ? new Date() : null,
    ],
  );
  inserted.push(orderId);
  return orderId;
}

describe("a partner's read of an order", () => {
  it('answers from its few columns exactly what the whole row answers, one order or many at once', async () => {
    const partnerId = randomUUID();
    const orderIds = [
      await order(partnerId, 'debit_first'),
      await order(partnerId, 'pay_in'),
      await order(partnerId, 'deposit'),
    ];
    const orders = new OrdersRepository(db);

    const many = await orders.readMany(orderIds);
    expect(many.map((row) => row.orderId).sort()).toEqual([...orderIds].sort());
    for (const orderId of orderIds) {
      const whole = await orders.find(orderId);
      if (!whole) throw new Error(`order ${orderId} not found`);
      const expected = toOrderMessage(whole);
      const one = await orders.read(orderId);
      if (!one) throw new Error(`order ${orderId} not read`);
      expect(toOrderMessage(one)).toEqual(expected);
      expect(one.partnerId).toBe(partnerId);
      expect(toOrderMessage(many.find((row) => row.orderId === orderId) ?? whole)).toEqual(expected);
    }
    const answers = (await Promise.all(orderIds.map((orderId) => orders.read(orderId)))).map(
      (row) => row && toOrderMessage(row),
    );
    expect(answers[1]?.paymentInstructions?.kesAmount).toBe('1236.75');
    expect(answers[1]?.payment?.railReference).toBe('QK12ABC');
    expect(answers[2]?.txHash).toMatch(/^[0-9a-f]{64}$/);
    expect(answers[2]?.sendBefore).toBeDefined();
    expect(answers[0]?.fee?.capKesAmount).toBe('50.00');
  });
});
