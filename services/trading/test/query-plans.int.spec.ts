// Proves trading's hot reads and writes cost the same whatever the history around them:
// a scratch database with trading's migrations, quotes and settled orders seeded for many
// partners (so the planner sees tables the size production has), and each hot operation
// run through its own repository with every statement planned by EXPLAIN (ANALYZE). The
// hot partner's history then grows a hundredfold (other partners' tenfold) and the same
// operations run again:
// - no statement reads a table that grows (quotes, orders, cap_usages) sequentially;
// - rows examined per table stay within 1.2× (and a few rows) of the run before.
// The daily cap's reservation is proved the same way in cap-window.int.spec.ts.
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from '@platform/persistence';
import {
  createScratchDatabase,
  ExplainingQueryable,
  growth,
  measureOperations,
  MeasuredOperation,
  migratedDataSource,
  ScratchDatabase,
} from '@platform/testing';
import { tradingDataSource } from '../src/persistence/data-source';
import { NewOrder, OrdersRepository } from '../src/persistence/orders.repository';
import { PartnerProfilesRepository } from '../src/persistence/partner-profiles.repository';
import { QuotesRepository } from '../src/persistence/quotes.repository';

const GROWING_TABLES = ['quotes', 'orders', 'cap_usages', 'cap_usage_buckets'] as const;
const OTHER_PARTNERS = 40;
/** Orders (each with its consumed quote) per partner before, and added after, for the hot partner and the others. */
const HISTORY = { hotBefore: 200, hotAdded: 20_000, otherBefore: 100, otherAdded: 1_000 };
const SEED_TIMEOUT_MS = 240_000;

const migrated = (url: string) =>
  migratedDataSource(url, tradingDataSource(url).options.migrations ?? [], SEED_TIMEOUT_MS);

async function newPartner(db: DataSource): Promise<string> {
  const partnerId = randomUUID();
  await db.query(
    `INSERT INTO partner_profiles (partner_id, status, buy_mode, sell_mode, fee_bps, fee_flat_kes, per_order_cap_kes, daily_cap_kes)
     VALUES ($1, 'active', 'debit_first', 'deposit', 50, '0.00', 1000000.00, 100000000.00)`,
    [partnerId],
  );
  return partnerId;
}

/**
 * `count` settled debit-first buys of `partnerId`, each with its consumed quote, one every
 * `stepMs` back from `before`; references ref-<n> from `firstReference` on.
 */
async function seedOrders(
  db: DataSource,
  partnerId: string,
  { count, before, stepMs, firstReference }: { count: number; before: Date; stepMs: number; firstReference: number },
): Promise<void> {
  await db.query(
    `WITH made AS (
       SELECT gen_random_uuid() AS quote_id, $2::timestamptz - g * make_interval(secs => $3::double precision / 1000) AS at,
              $4::int + g - 1 AS reference
         FROM generate_series(1, $5::int) AS g
     ), quoted AS (
       INSERT INTO quotes (quote_id, partner_id, side, priced_by, kes_amount, usdt_amount, rate, fee_kes, fee_bps, fee_flat_kes,
                           kes_total_amount, rate_observed_at, expires_at, consumed_at, created_at)
       SELECT quote_id, $1, 'buy', 'KES', 100.00, 0.769231, 130.0000, 0.50, 50, 0.00, 100.50, at, at + interval '30 seconds',
              at + interval '1 second', at FROM made
     )
     INSERT INTO orders (order_id, partner_id, partner_reference, quote_id, side, funding_mode, status, kes_amount, usdt_amount,
                         rate, fee_kes, fee_bps, fee_flat_kes, kes_total_amount, expires_at, kes_debit_status, debit_outcome,
                         completed_at, created_at, updated_at)
     SELECT gen_random_uuid(), $1, 'ref-' || reference, quote_id, 'buy', 'debit_first', 'settled', 100.00, 0.769231, 130.0000,
            0.50, 50, 0.00, 100.50, at + interval '30 seconds', 'debited', 'accepted', at + interval '2 seconds',
            at + interval '1 second', at + interval '2 seconds'
       FROM made`,
    [partnerId, before, stepMs, firstReference, count],
  );
}

async function analyse(db: DataSource): Promise<void> {
  for (const table of ['partner_profiles', 'quotes', 'orders']) await db.query(`VACUUM (ANALYZE) ${table}`);
}

/** A fresh quote and an order that is due, as the hot path meets them: one of each for the partner. */
async function seedLiveOrder(db: DataSource, partnerId: string): Promise<{ quoteId: string; orderId: string }> {
  const quoteId = randomUUID();
  const orderId = randomUUID();
  await db.query(
    `INSERT INTO quotes (quote_id, partner_id, side, priced_by, kes_amount, usdt_amount, rate, fee_kes, fee_bps, fee_flat_kes,
                         kes_total_amount, rate_observed_at, expires_at, created_at)
     VALUES ($1, $2, 'buy', 'KES', 100.00, 0.769231, 130.0000, 0.50, 50, 0.00, 100.50, now(), now() + interval '30 seconds', now())`,
    [quoteId, partnerId],
  );
  const orderQuoteId = randomUUID();
  await db.query(
    `INSERT INTO quotes (quote_id, partner_id, side, priced_by, kes_amount, usdt_amount, rate, fee_kes, fee_bps, fee_flat_kes,
                         kes_total_amount, rate_observed_at, expires_at, consumed_at, created_at)
     VALUES ($1, $2, 'buy', 'KES', 100.00, 0.769231, 130.0000, 0.50, 50, 0.00, 100.50, now(), now() + interval '30 seconds', now(), now())`,
    [orderQuoteId, partnerId],
  );
  await db.query(
    `INSERT INTO orders (order_id, partner_id, partner_reference, quote_id, side, funding_mode, status, kes_amount, usdt_amount,
                         rate, fee_kes, fee_bps, fee_flat_kes, kes_total_amount, expires_at, kes_debit_status, debit_outcome,
                         next_action_at)
     VALUES ($1, $2, $3, $4, 'buy', 'debit_first', 'funds_reserved', 100.00, 0.769231, 130.0000, 0.50, 50, 0.00, 100.50,
             now() + interval '30 seconds', 'reserved', 'pending', now() - interval '1 second')`,
    [orderId, partnerId, `live-${orderId}`, orderQuoteId],
  );
  return { quoteId, orderId };
}

/** A debit-first buy of 100.00 KES on the seeded quote, under a reference of its own. */
function orderOn(partnerId: string, quoteId: string): NewOrder {
  const orderId = randomUUID();
  return {
    orderId,
    partnerId,
    partnerReference: `placed-${orderId}`,
    quoteId,
    side: 'buy',
    fundingMode: 'debit_first',
    status: 'funds_reserved',
    kesAmount: '100.00',
    usdtAmount: '0.769231',
    rate: '130.0000',
    feeKes: '0.50',
    feeBps: 50,
    feeFlatKes: '0.00',
    feeCapKes: null,
    kesTotalAmount: '100.50',
    expiresAt: new Date(Date.now() + 30_000),
    kesDebitStatus: 'reserved',
    debitOutcome: 'pending',
    depositAddress: null,
    sendBefore: null,
    payoutAccountId: null,
    nextActionAt: null,
  };
}

type Operation = (queryable: ExplainingQueryable, ids: { quoteId: string; orderId: string }) => Promise<unknown>;

const page = { from: null, to: null, after: null, fetchLimit: 101, pageLimit: 100 };

/** The hot path's statements on the tables that grow, by operation. */
function operations(partnerId: string): Record<string, Operation> {
  const orders = (queryable: ExplainingQueryable) => new OrdersRepository(queryable as unknown as DataSource);
  const quotes = (queryable: ExplainingQueryable) => new QuotesRepository(queryable as unknown as DataSource);
  const manager = (queryable: ExplainingQueryable) => queryable as unknown as EntityManager;
  return {
    'read the quote an order names': (q, ids) => quotes(q).find(partnerId, ids.quoteId),
    // One statement (trading_place_order): its plan shows the call; what it reads inside is counted by the bench.
    'place an order on the quote': (q, ids) => orders(q).place(orderOn(partnerId, ids.quoteId), '100.00', new Date()),
    'give the quote back': (q, ids) => quotes(q).unconsume(manager(q), ids.quoteId),
    'find an order by id': (q, ids) => orders(q).find(ids.orderId),
    'find an order by partner reference': (q, ids) => orders(q).findByReference(partnerId, `live-${ids.orderId}`),
    'list the newest 100 orders': (q) => orders(q).list({ partnerId, status: null, partnerReference: null, page }),
    'list the newest settled orders': (q) =>
      orders(q).list({ partnerId, status: 'settled', partnerReference: null, page }),
    'list by partner reference': (q, ids) =>
      orders(q).list({ partnerId, status: null, partnerReference: `live-${ids.orderId}`, page }),
    'claim due orders': (q) => orders(q).claimDue(manager(q), 50, 30_000),
    'read the partner profile': (q) =>
      new PartnerProfilesRepository(q as unknown as DataSource).findTradingProfile(partnerId),
  };
}

describe('trading hot queries against a growing history', () => {
  let scratch: ScratchDatabase;
  let db: DataSource;
  let hotPartner: string;
  let others: string[];

  /** Every operation run once, planned. */
  async function measure(): Promise<Record<string, MeasuredOperation>> {
    return measureOperations(db, operations(hotPartner), await seedLiveOrder(db, hotPartner), GROWING_TABLES);
  }

  let before: Awaited<ReturnType<typeof measure>>;
  let after: Awaited<ReturnType<typeof measure>>;

  beforeAll(async () => {
    scratch = await createScratchDatabase('trading_query_plans');
    db = await migrated(scratch.url);
    hotPartner = await newPartner(db);
    others = [];
    for (let index = 0; index < OTHER_PARTNERS; index += 1) others.push(await newPartner(db));
    const now = new Date();
    // Before: the hot partner's day so far, the others' a little older.
    await seedOrders(db, hotPartner, { count: HISTORY.hotBefore, before: now, stepMs: 60_000, firstReference: 1 });
    for (const partnerId of others)
      await seedOrders(db, partnerId, { count: HISTORY.otherBefore, before: now, stepMs: 600_000, firstReference: 1 });
    await analyse(db);
    before = await measure();
    // After: 20,000 more for the hot partner over the same 24 hours, 1,000 more per other partner over 90 days.
    const earlier = new Date(now.getTime() - HISTORY.hotBefore * 60_000);
    await seedOrders(db, hotPartner, {
      count: HISTORY.hotAdded,
      before: earlier,
      stepMs: 4_000,
      firstReference: HISTORY.hotBefore + 1,
    });
    for (const partnerId of others)
      await seedOrders(db, partnerId, {
        count: HISTORY.otherAdded,
        before: new Date(now.getTime() - HISTORY.otherBefore * 600_000),
        stepMs: 7_776_000,
        firstReference: HISTORY.otherBefore + 1,
      });
    await analyse(db);
    after = await measure();
  }, SEED_TIMEOUT_MS);

  afterAll(async () => {
    await db?.destroy();
    await scratch?.drop();
  });

  it('seeds the tables the size the planner must plan for', async () => {
    const [{ orders }] = await db.query('SELECT count(*)::int AS orders FROM orders');
    expect(orders).toBeGreaterThanOrEqual(HISTORY.hotAdded + OTHER_PARTNERS * HISTORY.otherAdded);
  });

  it.each(Object.keys(operations(randomUUID())))('%s: reads no growing table sequentially', (name) => {
    expect({ before: before[name].seqScans, after: after[name].seqScans }).toEqual({ before: [], after: [] });
  });

  it.each(Object.keys(operations(randomUUID())))('%s: reads as many rows after the history grew', (name) => {
    expect(growth(before[name].rows, after[name].rows)).toEqual([]);
  });
});
