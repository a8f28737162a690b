// Proves the quote insert's relaxed flush stays with the quote's own transaction. On
// a pool of one connection (so every statement shares one backend, checked by its
// pid): inside a transaction the insert turns synchronous_commit off for that
// transaction (so the setting is really applied, not optimised away), and once that
// transaction ends the connection is back to on; the repository as the service
// wires it (each insert its own transaction) leaves the next statement and the next
// transaction on that connection committing synchronously. Many quotes in one
// statement (insertMany, the coalesced quotes): every row exact (money never a
// float, a null fee cap kept null), in one transaction, none stored when one row is
// refused, and the connection synchronous again afterwards.
import { randomUUID } from 'node:crypto';
import { Big } from '@platform/money';
import { createDataSource, DataSource } from '@platform/persistence';
import { loadTestStack } from '@platform/testing';
import { NewQuote, QuotesRepository } from '../src/persistence/quotes.repository';

interface SessionState {
  pid: number;
  synchronous_commit: string;
}

const SESSION_STATE_SQL = `SELECT pg_backend_pid() AS pid, current_setting('synchronous_commit') AS synchronous_commit`;

let db: DataSource;

beforeAll(async () => {
  db = await createDataSource({
    url: loadTestStack().databases.trading ?? '',
    applicationName: 'quote-insert-spec',
    poolSize: 1,
  }).initialize();
});

afterAll(async () => {
  await db?.destroy();
});

function newQuote(): NewQuote {
  const createdAt = new Date();
  return {
    quoteId: randomUUID(),
    partnerId: randomUUID(),
    pricedBy: 'KES',
    priced: {
      side: 'buy',
      kesAmount: new Big('1000.00'),
      usdtAmount: new Big('7.694669'),
      rate: new Big('129.9601'),
      feeKes: new Big('5.00'),
      kesTotalAmount: new Big('1005.00'),
    },
    fee: { percentBps: 50, flatKes: new Big('0'), capKes: null },
    rateObservedAt: createdAt,
    createdAt,
    expiresAt: new Date(createdAt.getTime() + 30_000),
  };
}

async function sessionState(query: (sql: string) => Promise<unknown>): Promise<SessionState> {
  const [state] = (await query(SESSION_STATE_SQL)) as SessionState[];
  return state;
}

it('turns synchronous_commit off for the transaction it runs in, and only for that transaction', async () => {
  const before = await sessionState((sql) => db.query(sql));
  expect(before.synchronous_commit).toBe('on');

  const during = await db.transaction(async (manager) => {
    await new QuotesRepository(manager).insert(newQuote());
    return sessionState((sql) => manager.query(sql));
  });
  expect(during).toEqual({ pid: before.pid, synchronous_commit: 'off' });

  expect(await sessionState((sql) => db.query(sql))).toEqual({ pid: before.pid, synchronous_commit: 'on' });
});

it('as wired in the service, writes the quote exactly and leaves the next statement and transaction on the connection synchronous', async () => {
  const quote = newQuote();
  const { pid } = await sessionState((sql) => db.query(sql));

  await new QuotesRepository(db).insert(quote);

  const [row] = (await db.query(
    'SELECT kes_amount::text, usdt_amount::text, rate::text, fee_kes::text, kes_total_amount::text, consumed_at FROM quotes WHERE quote_id = $1',
    [quote.quoteId],
  )) as Array<Record<string, unknown>>;
  expect(row).toEqual({
    kes_amount: '1000.00',
    usdt_amount: '7.694669',
    rate: '129.9601',
    fee_kes: '5.00',
    kes_total_amount: '1005.00',
    consumed_at: null,
  });
  expect(await sessionState((sql) => db.query(sql))).toEqual({ pid, synchronous_commit: 'on' });
  // The setting a transaction commits with is the one in force at its COMMIT: read it last thing inside.
  const atCommit = await db.transaction(async (manager) => {
    await manager.query('SELECT 1 FROM quotes WHERE quote_id = $1 FOR UPDATE', [quote.quoteId]);
    return sessionState((sql) => manager.query(sql));
  });
  expect(atCommit).toEqual({ pid, synchronous_commit: 'on' });
});

it('stores many quotes in one statement, every row exact, none of them when one row is refused', async () => {
  const capped = newQuote();
  capped.fee = { percentBps: 50, flatKes: new Big('1.50'), capKes: new Big('400.00') };
  const quotes = [newQuote(), capped, newQuote()];
  const repository = new QuotesRepository(db);
  const { pid } = await sessionState((sql) => db.query(sql));

  await repository.insertMany(quotes);

  const rows = (await db.query(
    `SELECT quote_id, kes_amount::text, usdt_amount::text, rate::text, fee_kes::text, fee_flat_kes::text,
            fee_cap_kes::text, kes_total_amount::text, expires_at, consumed_at
       FROM quotes WHERE quote_id = ANY($1::uuid[]) ORDER BY array_position($1::uuid[], quote_id)`,
    [quotes.map((quote) => quote.quoteId)],
  )) as Array<Record<string, unknown>>;
  expect(rows).toEqual(
    quotes.map((quote) => ({
      quote_id: quote.quoteId,
      kes_amount: '1000.00',
      usdt_amount: '7.694669',
      rate: '129.9601',
      fee_kes: '5.00',
      fee_flat_kes: quote === capped ? '1.50' : '0.00',
      fee_cap_kes: quote === capped ? '400.00' : null,
      kes_total_amount: '1005.00',
      expires_at: quote.expiresAt,
      consumed_at: null,
    })),
  );
  expect(await sessionState((sql) => db.query(sql))).toEqual({ pid, synchronous_commit: 'on' });

  // A row its checks refuse (expiry not after creation) fails the statement: its neighbour is not stored either.
  const refused = newQuote();
  refused.expiresAt = refused.createdAt;
  const neighbour = newQuote();
  await expect(repository.insertMany([neighbour, refused])).rejects.toThrow(/check constraint/);
  const [{ count }] = (await db.query('SELECT count(*)::int AS count FROM quotes WHERE quote_id = ANY($1::uuid[])', [
    [neighbour.quoteId, refused.quoteId],
  ])) as Array<{ count: number }>;
  expect(count).toBe(0);
});
