// Proves the quote insert's relaxed flush stays with the quote: on a pool of one
// connection (so every statement shares it), a quote written by QuotesRepository
// reads back exactly, and the very next statement on that connection (an order's
// transaction, say) runs with synchronous_commit on again; and a transaction that
// follows commits synchronously as before.
import { randomUUID } from 'node:crypto';
import { Big } from '@platform/money';
import { createDataSource, DataSource } from '@platform/persistence';
import { loadTestStack } from '@platform/testing';
import { QuotesRepository } from '../src/persistence/quotes.repository';

let db: DataSource;

beforeAll(async () => {
  db = await createDataSource({ url: loadTestStack().databases.trading ?? '', applicationName: 'quote-insert-spec', poolSize: 1 }).initialize();
});

afterAll(async () => {
  await db?.destroy();
});

it('writes the quote without leaving synchronous_commit off for what follows on the connection', async () => {
  const quoteId = randomUUID();
  const createdAt = new Date();
  await new QuotesRepository(db).insert({
    quoteId,
    partnerId: randomUUID(),
    pricedBy: 'KES',
    priced: { side: 'buy', kesAmount: new Big('1000.00'), usdtAmount: new Big('7.694669'), rate: new Big('129.9601'), feeKes: new Big('5.00'), kesTotalAmount: new Big('1005.00') },
    fee: { percentBps: 50, flatKes: new Big('0'), capKes: null },
    rateObservedAt: createdAt,
    createdAt,
    expiresAt: new Date(createdAt.getTime() + 30_000),
  });
  const [row] = (await db.query('SELECT kes_amount::text, usdt_amount::text, rate::text, fee_kes::text, kes_total_amount::text, consumed_at FROM quotes WHERE quote_id = $1', [quoteId])) as Array<Record<string, unknown>>;
  expect(row).toEqual({ kes_amount: '1000.00', usdt_amount: '7.694669', rate: '129.9601', fee_kes: '5.00', kes_total_amount: '1005.00', consumed_at: null });
  expect(await db.query('SHOW synchronous_commit')).toEqual([{ synchronous_commit: 'on' }]);
  const inTransaction = await db.transaction(async (manager) => manager.query('SHOW synchronous_commit'));
  expect(inTransaction).toEqual([{ synchronous_commit: 'on' }]);
});
