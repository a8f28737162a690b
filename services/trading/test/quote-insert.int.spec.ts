// Proves the quote insert's relaxed flush stays with the quote's own transaction. On
// a pool of one connection (so every statement shares one backend, checked by its
// pid): inside a transaction the insert turns synchronous_commit off for that
// transaction (so the setting is really applied, not optimised away), and once that
// transaction ends the connection is back to on; the repository as the service
// wires it (each insert its own transaction) leaves the next statement and the next
// transaction on that connection committing synchronously. Many quotes in one
// statement (insertMany, the coalesced quotes): every row exact (money never a
// float, a null fee cap kept null), in one transaction, none stored when one row is
// refused, and the connection synchronous again afterwards. Many quotes priced from
// known fee schedules (insertManyIfScheduleCurrent): only those whose partner still
// stores, text for text, the schedule each was priced with are stored, exact.
import { Big } from '@platform/money';
import { createDataSource, DataSource } from '@platform/persistence';
import { loadTestStack } from '@platform/testing';
import type { FeeSchedule } from '../src/domain/fee-schedule';
import { NewQuote, QuotesRepository } from '../src/persistence/quotes.repository';
import { newQuote } from './new-quote';

/** A schedule with every part: 50 bps, 1.50 flat, capped at 400.00. */
const CAPPED_FEE: FeeSchedule = { percentBps: 50, flatKes: new Big('1.50'), capKes: new Big('400.00') };

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

/** The stored rows of `quotes`, in their order, every amount as text. */
async function storedRows(quotes: readonly NewQuote[]): Promise<Array<Record<string, unknown>>> {
  return (await db.query(
    `SELECT quote_id, kes_amount::text, usdt_amount::text, rate::text, fee_kes::text, fee_bps, fee_flat_kes::text,
            fee_cap_kes::text, kes_total_amount::text, expires_at, consumed_at
       FROM quotes WHERE quote_id = ANY($1::uuid[]) ORDER BY array_position($1::uuid[], quote_id)`,
    [quotes.map((quote) => quote.quoteId)],
  )) as Array<Record<string, unknown>>;
}

/** The row newQuote() is stored as, exactly; `capped` when its fee is 1.50 flat capped at 400.00. */
function expectedRow(quote: NewQuote, capped: boolean): Record<string, unknown> {
  return {
    quote_id: quote.quoteId,
    kes_amount: '1000.00',
    usdt_amount: '7.694669',
    rate: '129.9601',
    fee_kes: '5.00',
    fee_bps: 50,
    fee_flat_kes: capped ? '1.50' : '0.00',
    fee_cap_kes: capped ? '400.00' : null,
    kes_total_amount: '1005.00',
    expires_at: quote.expiresAt,
    consumed_at: null,
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
  const capped = newQuote(CAPPED_FEE);
  const quotes = [newQuote(), capped, newQuote()];
  const repository = new QuotesRepository(db);
  const { pid } = await sessionState((sql) => db.query(sql));

  await repository.insertMany(quotes);

  expect(await storedRows(quotes)).toEqual(quotes.map((quote) => expectedRow(quote, quote === capped)));
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

it('stores a quote priced from a known fee schedule only while its partner stores that schedule, text for text', async () => {
  // Each partner's profile as an operator would leave it; the columns are text, so "1.5" is not "1.50".
  const profile = async (partnerId: string, feeBps: number, feeFlatKes: string, feeCapKes: string | null) =>
    db.query(
      `INSERT INTO partner_profiles (partner_id, status, buy_mode, sell_mode, fee_bps, fee_flat_kes, fee_cap_kes, per_order_cap_kes, daily_cap_kes)
       VALUES ($1, 'active', 'debit_first', 'deposit', $2, $3, $4, '1000000.00', '100000000.00')`,
      [partnerId, feeBps, feeFlatKes, feeCapKes],
    );
  const current = newQuote();
  const capped = newQuote(CAPPED_FEE);
  const otherText = newQuote();
  const otherCap = newQuote();
  const otherBps = newQuote();
  const noCapNow = newQuote(CAPPED_FEE);
  const noProfile = newQuote();
  const profiled = [current, capped, otherText, otherCap, otherBps, noCapNow];
  try {
    await profile(current.partnerId, 50, '0.00', null);
    await profile(capped.partnerId, 50, '1.50', '400.00');
    await profile(otherText.partnerId, 50, '0.0', null);
    await profile(otherCap.partnerId, 50, '0.00', '400.00');
    await profile(otherBps.partnerId, 60, '0.00', null);
    await profile(noCapNow.partnerId, 50, '1.50', null);
    const schedule = (feeBps: number, feeFlatKes: string, feeCapKes: string | null) => ({
      feeBps,
      feeFlatKes,
      feeCapKes,
    });
    const { pid } = await sessionState((sql) => db.query(sql));

    const stored = await new QuotesRepository(db).insertManyIfScheduleCurrent([
      { quote: current, schedule: schedule(50, '0.00', null) },
      { quote: otherText, schedule: schedule(50, '0.00', null) },
      { quote: capped, schedule: schedule(50, '1.50', '400.00') },
      { quote: otherCap, schedule: schedule(50, '0.00', null) },
      { quote: otherBps, schedule: schedule(50, '0.00', null) }, // stored 60 bps: the percentage changed since
      { quote: noCapNow, schedule: schedule(50, '1.50', '400.00') }, // the cap since removed
      { quote: noProfile, schedule: schedule(50, '0.00', null) },
    ]);

    expect(stored).toEqual(new Set([current.quoteId, capped.quoteId]));
    expect(await storedRows([current, otherText, capped, otherCap, otherBps, noCapNow, noProfile])).toEqual(
      [current, capped].map((quote) => expectedRow(quote, quote === capped)),
    );
    expect(await sessionState((sql) => db.query(sql))).toEqual({ pid, synchronous_commit: 'on' });
  } finally {
    await db.query('DELETE FROM partner_profiles WHERE partner_id = ANY($1::uuid[])', [
      profiled.map((quote) => quote.partnerId),
    ]);
  }
});
