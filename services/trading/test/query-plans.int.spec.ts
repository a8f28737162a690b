// Proves trading's hot reads and writes cost the same whatever the history around them:
// a scratch database with trading's migrations, quotes and settled orders seeded for many
// partners (so the planner sees tables the size production has), and each hot operation
// run through its own repository with every statement planned by EXPLAIN (ANALYZE). The
// hot partner's history then grows a hundredfold (other partners' tenfold) and the same
// operations run again:
// - no statement reads a table that grows (quotes, orders, the cap's usages, buckets and windows,
//   partner profiles) sequentially;
// - rows examined per table stay within 1.2× (and a few rows) of the run before.
// Every seeded order counts against its partner's daily cap (its usage, its minute's bucket), and
// 10,000 partners have a cap window, so placing an order meets the cap tables production has. The
// hot partner's quotes in flight (issued, not yet consumed, placed after the statistics were taken)
// grow twentyfold too: consuming a quote reads it by its key, not every quote in flight.
// The daily cap's reservation is proved with plans as a long-lived connection keeps them in
// cap-window.int.spec.ts.
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from '@platform/persistence';
import {
  DAY_OF_HOT_HISTORY,
  describeFlatQueries,
  ExplainingQueryable,
  HistorySeed,
  PlannedOperation,
  seedHistories,
} from '@platform/testing';
import { capWindowStart } from '../src/domain/cap-window';
import { CapUsagesRepository } from '../src/persistence/cap-usages.repository';
import { tradingDataSource } from '../src/persistence/data-source';
import { OrderIntakeRepository } from '../src/persistence/order-intake.repository';
import { OrdersRepository } from '../src/persistence/orders.repository';
import { PartnerProfilesRepository } from '../src/persistence/partner-profiles.repository';
import { QuotesRepository } from '../src/persistence/quotes.repository';
import { newQuote } from './new-quote';
import { buyOrderOn } from './placed-order';

const GROWING_TABLES = [
  'quotes',
  'orders',
  'cap_usages',
  'cap_usage_buckets',
  'cap_windows',
  'partner_profiles',
] as const;
const OTHER_PARTNERS = 40;
/** Partners with a cap window and no history: the windows table as 10,000 partners make it. */
const IDLE_PARTNERS = 10_000;
/** The hot partner's quotes issued and not yet consumed before each measurement (more the second time). */
const QUOTES_IN_FLIGHT = [20, 400];
/** Orders (each with its consumed quote) per partner before, and added after, for the hot partner and the others. */
const HISTORY = DAY_OF_HOT_HISTORY;
const SEED_TIMEOUT_MS = 240_000;

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
 * `stepMs` back from `before`; references ref-<n> from `first` on.
 */
async function seedOrders(
  db: DataSource,
  partnerId: string,
  { count, before, stepMs, first }: HistorySeed,
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
    [partnerId, before, stepMs, first, count],
  );
  // Each order's daily-cap usage, as the order's creation counted it (the triggers fill the buckets and the
  // window); only those of the last day, as older ones leave the window anyway.
  await db.query(
    `INSERT INTO cap_usages (usage_id, partner_id, source, amount_kes, given_currency, given_amount, created_at)
     SELECT o.order_id, o.partner_id, 'order', o.kes_total_amount, 'KES', o.kes_total_amount, o.created_at
       FROM orders o
      WHERE o.partner_id = $1 AND o.created_at > now() - interval '25 hours'
        AND NOT EXISTS (SELECT 1 FROM cap_usages u WHERE u.usage_id = o.order_id)`,
    [partnerId],
  );
}

/** Partners with a cap window of their own and nothing else. */
async function seedIdlePartners(db: DataSource, count: number): Promise<void> {
  await db.query(
    `WITH made AS (
       INSERT INTO partner_profiles (partner_id, status, buy_mode, sell_mode, fee_bps, fee_flat_kes, per_order_cap_kes, daily_cap_kes)
       SELECT gen_random_uuid(), 'active', 'debit_first', 'deposit', 50, '0.00', 1000000.00, 100000000.00
         FROM generate_series(1, $1::int)
       RETURNING partner_id
     )
     INSERT INTO cap_windows (partner_id, open_kes, counted_from)
     SELECT partner_id, 0, cap_bucket_start(now()) - interval '24 hours' FROM made`,
    [count],
  );
}

/**
 * Every window moved to the current minute (its expired minutes dropped), as the partner's next
 * reservation would, then the statistics.
 */
async function analyse(db: DataSource): Promise<void> {
  await db.query('SELECT cap_window_lock(w.partner_id, now()) FROM cap_windows w');
  for (const table of ['partner_profiles', 'quotes', 'orders', 'cap_usages', 'cap_usage_buckets', 'cap_windows'])
    await db.query(`VACUUM (ANALYZE) ${table}`);
}

/** `count` quotes of the partner issued just now and not consumed: orders on their way. */
async function seedQuotesInFlight(db: DataSource, partnerId: string, count: number): Promise<void> {
  await db.query(
    `INSERT INTO quotes (quote_id, partner_id, side, priced_by, kes_amount, usdt_amount, rate, fee_kes, fee_bps, fee_flat_kes,
                         kes_total_amount, rate_observed_at, expires_at, created_at)
     SELECT gen_random_uuid(), $1, 'buy', 'KES', 100.00, 0.769231, 130.0000, 0.50, 50, 0.00, 100.50, now(),
            now() + interval '30 seconds', now()
       FROM generate_series(1, $2::int)`,
    [partnerId, count],
  );
}

/** A fresh quote and an order that is due, as the hot path meets them: one of each for the partner. */
async function seedLiveOrder(db: DataSource, partnerId: string): Promise<Live> {
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
  return { partnerId, quoteId, orderId };
}

/** The live rows of the hot partner one measurement works on. */
interface Live {
  partnerId: string;
  quoteId: string;
  orderId: string;
}

const page = { from: null, to: null, after: null, fetchLimit: 101, pageLimit: 100 };

const orders = (queryable: ExplainingQueryable) => new OrdersRepository(queryable as unknown as DataSource);
const quotes = (queryable: ExplainingQueryable) => new QuotesRepository(queryable as unknown as DataSource);
const manager = (queryable: ExplainingQueryable) => queryable as unknown as EntityManager;

/** The hot path's statements on the tables that grow, by operation. */
const operations: Record<string, PlannedOperation<Live>> = {
  // One statement: the quote, the order already made under the reference, the switches and the profile.
  "read an order's intake (quote, reference, switches, profile)": (q, live) =>
    new OrderIntakeRepository(q as unknown as DataSource).read(live.partnerId, live.quoteId, `live-${live.orderId}`),
  // One statement (trading_place_order): the cap, the quote and the order inside it are counted from the
  // transaction's own table statistics, as the statements a trigger or function runs are.
  'place an order on the quote': (q, live) =>
    orders(q).place(buyOrderOn(live.partnerId, live.quoteId), '100.00', new Date()),
  'give the quote back': (q, live) => quotes(q).unconsume(manager(q), live.quoteId),
  // One statement a batch of partners whose fee schedule is known: each quote stored only while its partner's
  // stored schedule (read by its key) is the one it was priced with, as every seeded partner's is here.
  'store quotes priced from a known fee schedule': async (q, live) => {
    const schedule = { feeBps: 50, feeFlatKes: '0.00', feeCapKes: null };
    const priced = [newQuote(undefined, live.partnerId), newQuote(undefined, live.partnerId)];
    const stored = await quotes(q).insertManyIfScheduleCurrent(priced.map((quote) => ({ quote, schedule })));
    if (stored.size !== priced.length) throw new Error(`stored ${stored.size} of ${priced.length} quotes`);
  },
  'find an order by id': (q, live) => orders(q).find(live.orderId),
  'list the newest 100 orders': (q, live) =>
    orders(q).list({ partnerId: live.partnerId, status: null, partnerReference: null, page }),
  'list the newest settled orders': (q, live) =>
    orders(q).list({ partnerId: live.partnerId, status: 'settled', partnerReference: null, page }),
  'list by partner reference': (q, live) =>
    orders(q).list({ partnerId: live.partnerId, status: null, partnerReference: `live-${live.orderId}`, page }),
  'claim due orders': (q) => orders(q).claimDue(manager(q), 50, 30_000),
  'claim due sell proceeds': (q) => orders(q).claimDueSellProceeds(manager(q), 50, 30_000),
  'read the partner profile': (q, live) =>
    new PartnerProfilesRepository(q as unknown as DataSource).findTradingProfile(live.partnerId),
  'read the daily cap in use (GetPartnerLimits)': (q, live) =>
    new CapUsagesRepository().readOpenKes(manager(q), live.partnerId, capWindowStart(new Date())),
};

describeFlatQueries({
  title: 'trading hot queries against a growing history',
  scratchName: 'trading_query_plans',
  serviceDataSource: tradingDataSource,
  growingTables: GROWING_TABLES,
  timeoutMs: SEED_TIMEOUT_MS,
  async seedBefore(db) {
    const hotPartner = await newPartner(db);
    const others: string[] = [];
    for (let index = 0; index < OTHER_PARTNERS; index += 1) others.push(await newPartner(db));
    await seedIdlePartners(db, IDLE_PARTNERS);
    const partners = { hotPartner, others, now: new Date(), measurements: 0 };
    await seedHistories(db, partners, HISTORY, 'before', seedOrders);
    return partners;
  },
  seedAdded: (db, partners) => seedHistories(db, partners, HISTORY, 'added', seedOrders),
  analyse,
  async liveContext(db, partners) {
    await seedQuotesInFlight(db, partners.hotPartner, QUOTES_IN_FLIGHT[partners.measurements++]);
    return seedLiveOrder(db, partners.hotPartner);
  },
  operations: () => operations,
  minimumRows: {
    orders: HISTORY.hotAdded + OTHER_PARTNERS * HISTORY.otherAdded,
    cap_usages: HISTORY.hotAdded,
    cap_usage_buckets: 1_000,
    cap_windows: IDLE_PARTNERS,
  },
});
