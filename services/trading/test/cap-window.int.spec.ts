// Proves the daily cap counted by the minute against the test stack's PostgreSQL:
// a scratch database with trading's migrations, the reservation, release and
// limits code called directly with explicit times (the code takes `now` as a
// parameter, so a test sets the instant), and the database's own view checked
// after each step (every window's total equals its buckets, every bucket the
// unreleased usages of its minute).
// - Edges: a usage counts until the start of its minute + 24 h + 1 min and not an
//   instant longer; reaching the cap exactly passes, a cent over refuses with the
//   source's code; a clock behind the partner's window counts at the window's
//   latest minute instead of moving it back, and one at or past it at its own time.
// - Concurrency: 50 reservations at once (across a minute boundary, orders,
//   transfers and sends sharing the cap) never exceed it and exactly
//   floor(cap / amount) pass; a release called twice at once gives the amount
//   back once; a release after the usage's minute left the window changes nothing.
// - An order's placement locks the partner's window last: while another transaction holds
//   the window, the waiting placement already holds its quote; a reservation committed while
//   it waited refuses it under the lock, leaving no order, no usage and its quote usable; the
//   refusals come in their order (partner, cap, quote) and neither takes nor creates the window.
// - Constant work: with 100,000 open usages of the partner, a reservation reads a
//   handful of rows (the removed window sum read every one of them) and never
//   scans cap_usages or the buckets sequentially, also with the generic plans a
//   long-lived connection keeps for the functions' statements (where the
//   changes' length is unknown to the planner).
// - Migration: usages written before it keep counting (only those of the last
//   24 hours), and a usage written the previous release's way (no created_at,
//   the database's clock) reaches the window too.
import { randomUUID } from 'node:crypto';
import { isAppError } from '@platform/errors';
import { Big } from '@platform/money';
import { createDataSource, DataSource, EntityManager, withTransaction } from '@platform/persistence';
import { createScratchDatabase, ScratchDatabase } from '@platform/testing';
import type { CapSource } from '../src/domain/daily-cap';
import { tradingDataSource } from '../src/persistence/data-source';
import { OrdersRepository } from '../src/persistence/orders.repository';
import { CapWindowsMigration1732710000000 } from '../src/persistence/migrations/1732710000000-cap-windows';
import { CapAndQuoteByKeyMigration1797700000000 } from '../src/persistence/migrations/1797700000000-cap-and-quote-by-key';
import { GetPartnerLimitsUseCase } from '../src/usecases/get-partner-limits/get-partner-limits.usecase';
import { ReleaseDailyCapUseCase } from '../src/usecases/release-daily-cap/release-daily-cap.usecase';
import { reserveInTransaction } from '../src/usecases/reserve-daily-cap/reserve-daily-cap.usecase';
import { buyOrderOn, insertBuyQuote } from './placed-order';

/** A migration class as the data source lists it. */
type MigrationClass = new () => unknown;

const POOL_SIZE = 12;
/** Seeding 100,000 usages is one statement (their triggers included): on a loaded machine it outlasts a service's timeout. */
const SEED_STATEMENT_TIMEOUT_MS = 90_000;
const at = (iso: string) => new Date(iso);
/** How often, and how many times, a spec looks for a placement waiting on the cap window (5 s in all). */
const LOCK_WAIT_POLL_MS = 25;
const LOCK_WAIT_POLLS_MAX = 200;

/** Started now, awaited by the test later: a failure meanwhile is that test's, not an unhandled rejection. */
function started<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

/** The cap windows' migration, and those after it that replace the functions it creates. */
const CAP_WINDOW_MIGRATIONS: readonly MigrationClass[] = [
  CapWindowsMigration1732710000000,
  CapAndQuoteByKeyMigration1797700000000,
];

function capDataSource(url: string, withCapWindows = true): DataSource {
  const migrations = (tradingDataSource(url).options.migrations as MigrationClass[]).filter(
    (migration) => withCapWindows || !CAP_WINDOW_MIGRATIONS.includes(migration),
  );
  return createDataSource({
    url,
    applicationName: 'cap-window-spec',
    migrations,
    poolSize: POOL_SIZE,
    statementTimeoutMs: SEED_STATEMENT_TIMEOUT_MS,
  });
}

async function migrated(url: string, withCapWindows = true): Promise<DataSource> {
  const db = await capDataSource(url, withCapWindows).initialize();
  await db.runMigrations({ transaction: 'each' });
  return db;
}

async function newPartner(db: DataSource, dailyCapKes: string): Promise<string> {
  const partnerId = randomUUID();
  await db.query(
    `INSERT INTO partner_profiles (partner_id, status, buy_mode, sell_mode, fee_bps, fee_flat_kes, per_order_cap_kes, daily_cap_kes)
     VALUES ($1, 'active', 'debit_first', 'deposit', 50, '0.00', $2, $2)`,
    [partnerId, dailyCapKes],
  );
  return partnerId;
}

/** 'reserved', or the refusal's code. */
async function reserve(
  db: DataSource,
  partnerId: string,
  amountKes: string,
  now: Date,
  source: CapSource = 'order',
  usageId = randomUUID(),
): Promise<string> {
  const amount = new Big(amountKes);
  try {
    await withTransaction(db, (manager) =>
      reserveInTransaction(manager, { usageId, partnerId, source, given: { currency: 'KES', amount } }, amount, now),
    );
    return 'reserved';
  } catch (error) {
    if (isAppError(error)) return error.code;
    throw error;
  }
}

async function usedAt(db: DataSource, partnerId: string, now: Date): Promise<string> {
  return (await new GetPartnerLimitsUseCase(db, { now: () => now }).execute({ partnerId })).dailyUsedKes;
}

async function windowOf(
  db: DataSource | EntityManager,
  partnerId: string,
): Promise<{ openKes: string; countedFrom: string } | null> {
  const [row] = await db.query(
    'SELECT open_kes::text AS "openKes", counted_from AS "countedFrom" FROM cap_windows WHERE partner_id = $1',
    [partnerId],
  );
  return row ? { openKes: row.openKes, countedFrom: new Date(row.countedFrom).toISOString() } : null;
}

/** The window's total is its buckets', each bucket holds exactly the unreleased usages of its minute, none before the window. */
async function expectConsistent(db: DataSource, partnerId: string): Promise<void> {
  const [check] = await db.query(
    `SELECT w.open_kes = (SELECT coalesce(sum(b.reserved_kes), 0) FROM cap_usage_buckets b WHERE b.partner_id = w.partner_id) AS "totalIsBuckets",
            (SELECT count(*)::int FROM cap_usage_buckets b WHERE b.partner_id = w.partner_id AND b.bucket_start < w.counted_from) AS "bucketsBefore",
            (SELECT count(*)::int FROM (
               SELECT cap_bucket_start(u.created_at) AS bucket_start, sum(u.amount_kes) AS kes FROM cap_usages u
                WHERE u.partner_id = w.partner_id AND u.released_at IS NULL AND u.created_at >= w.counted_from GROUP BY 1) expected
               FULL JOIN (SELECT bucket_start, reserved_kes AS kes FROM cap_usage_buckets b WHERE b.partner_id = w.partner_id AND b.reserved_kes > 0) actual
               USING (bucket_start)
              WHERE expected.kes IS DISTINCT FROM actual.kes) AS "bucketsWrong"
       FROM cap_windows w WHERE w.partner_id = $1`,
    [partnerId],
  );
  expect(check).toEqual({ totalIsBuckets: true, bucketsBefore: 0, bucketsWrong: 0 });
}

describe('the daily cap by the minute', () => {
  let scratch: ScratchDatabase;
  let db: DataSource;

  beforeAll(async () => {
    scratch = await createScratchDatabase('trading_cap_window');
    db = await migrated(scratch.url);
  });

  afterAll(async () => {
    await db?.destroy();
    await scratch?.drop();
  });

  it('frees a usage exactly at the start of its minute + 24 h + 1 min, and counts it until then', async () => {
    const partnerId = await newPartner(db, '100.00');
    expect(await reserve(db, partnerId, '60.00', at('2030-01-01T10:00:30.000Z'))).toBe('reserved');
    expect(await reserve(db, partnerId, '30.00', at('2030-01-01T10:05:00.000Z'), 'transfer')).toBe('reserved');
    expect(await reserve(db, partnerId, '10.00', at('2030-01-01T10:05:59.999Z'), 'usdt_send')).toBe('reserved'); // reaches the cap exactly
    expect(await reserve(db, partnerId, '0.01', at('2030-01-02T10:00:30.000Z'), 'transfer')).toBe('DAILY_CAP_EXCEEDED'); // 24 h after: still counts
    expect(await reserve(db, partnerId, '0.01', at('2030-01-02T10:00:59.999Z'))).toBe('ORDER_EXCEEDS_DAILY_CAP');
    expect(await usedAt(db, partnerId, at('2030-01-02T10:00:59.999Z'))).toBe('100.00');
    expect(await usedAt(db, partnerId, at('2030-01-02T10:01:00.000Z'))).toBe('40.00');
    expect(await reserve(db, partnerId, '60.01', at('2030-01-02T10:01:00.000Z'))).toBe('ORDER_EXCEEDS_DAILY_CAP');
    expect(await reserve(db, partnerId, '60.00', at('2030-01-02T10:01:00.000Z'))).toBe('reserved');
    expect(await windowOf(db, partnerId)).toEqual({ openKes: '100.00', countedFrom: '2030-01-01T10:01:00.000Z' });
    await expectConsistent(db, partnerId);
    // Both usages of the 10:05 minute leave together.
    expect(await reserve(db, partnerId, '0.01', at('2030-01-02T10:05:59.999Z'))).toBe('ORDER_EXCEEDS_DAILY_CAP');
    expect(await reserve(db, partnerId, '40.01', at('2030-01-02T10:06:00.000Z'))).toBe('ORDER_EXCEEDS_DAILY_CAP');
    expect(await reserve(db, partnerId, '40.00', at('2030-01-02T10:06:00.000Z'))).toBe('reserved');
    expect(await windowOf(db, partnerId)).toEqual({ openKes: '100.00', countedFrom: '2030-01-01T10:06:00.000Z' });
    await expectConsistent(db, partnerId);
    const [{ buckets }] = await db.query(
      'SELECT count(*)::int AS buckets FROM cap_usage_buckets WHERE partner_id = $1',
      [partnerId],
    );
    expect(buckets).toBe(2); // the minutes that left were deleted
  });

  it('counts a reservation whose clock is behind the window at the window latest minute, never moving it back', async () => {
    const partnerId = await newPartner(db, '100.00');
    const [first, behind, later] = [randomUUID(), randomUUID(), randomUUID()];
    // No window yet: counted at its own clock, to the millisecond.
    expect(await reserve(db, partnerId, '50.00', at('2030-01-01T12:00:30.123Z'), 'order', first)).toBe('reserved');
    expect(await reserve(db, partnerId, '50.00', at('2030-01-01T11:57:10.000Z'), 'transfer', behind)).toBe('reserved');
    expect(await windowOf(db, partnerId)).toEqual({ openKes: '100.00', countedFrom: '2029-12-31T12:00:00.000Z' });
    expect(await reserve(db, partnerId, '100.00', at('2030-01-02T12:00:59.999Z'))).toBe('ORDER_EXCEEDS_DAILY_CAP');
    expect(await reserve(db, partnerId, '100.00', at('2030-01-02T12:01:00.000Z'), 'order', later)).toBe('reserved');
    // Behind the latest minute: its start; at or past it: the clock.
    const usages: Array<{ usageId: string; createdAt: Date | string }> = await db.query(
      'SELECT usage_id AS "usageId", created_at AS "createdAt" FROM cap_usages WHERE usage_id = ANY($1)',
      [[first, behind, later]],
    );
    const createdAt = Object.fromEntries(
      usages.map((usage) => [usage.usageId, new Date(usage.createdAt).toISOString()]),
    );
    expect([createdAt[first], createdAt[behind], createdAt[later]]).toEqual([
      '2030-01-01T12:00:30.123Z',
      '2030-01-01T12:00:00.000Z',
      '2030-01-02T12:01:00.000Z',
    ]);
    await expectConsistent(db, partnerId);
  });

  it('lets exactly floor(cap / amount) of 50 concurrent reservations pass, across a minute boundary and all three sources', async () => {
    const partnerId = await newPartner(db, '1000.00');
    const sources: CapSource[] = ['order', 'transfer', 'usdt_send'];
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        reserve(
          db,
          partnerId,
          '30.00',
          new Date(Date.parse('2030-01-01T14:59:59.000Z') + index * 40),
          sources[index % 3],
        ),
      ),
    );
    expect(outcomes.filter((outcome) => outcome === 'reserved')).toHaveLength(33);
    const refusals = outcomes
      .map((outcome, index) => [outcome, sources[index % 3]])
      .filter(([outcome]) => outcome !== 'reserved');
    expect(refusals).toHaveLength(17);
    for (const [code, source] of refusals)
      expect(code).toBe(source === 'order' ? 'ORDER_EXCEEDS_DAILY_CAP' : 'DAILY_CAP_EXCEEDED');
    expect(await usedAt(db, partnerId, at('2030-01-01T15:00:10.000Z'))).toBe('990.00');
    await expectConsistent(db, partnerId);
  });

  it('gives a released amount back once, even when released twice at once', async () => {
    const partnerId = await newPartner(db, '100.00');
    const usageId = randomUUID();
    expect(await reserve(db, partnerId, '100.00', at('2030-01-01T16:00:00.000Z'), 'transfer', usageId)).toBe(
      'reserved',
    );
    const release = new ReleaseDailyCapUseCase(db);
    const [first, second] = await Promise.all([release.execute({ usageId }), release.execute({ usageId })]);
    expect(first).toEqual(second);
    expect(first).toMatchObject({
      found: true,
      usage: { usageId, amountKes: '100.00', releasedAt: expect.any(String) },
    });
    expect(await windowOf(db, partnerId)).toEqual({ openKes: '0.00', countedFrom: '2029-12-31T16:00:00.000Z' });
    await expectConsistent(db, partnerId);
    expect(await reserve(db, partnerId, '100.00', at('2030-01-01T16:00:01.000Z'))).toBe('reserved');
    expect(await reserve(db, partnerId, '0.01', at('2030-01-01T16:00:02.000Z'))).toBe('ORDER_EXCEEDS_DAILY_CAP');
    expect(await release.execute({ usageId })).toEqual(first);
    expect(await release.execute({ usageId: randomUUID() })).toEqual({ found: false, usage: null });
  });

  it('changes nothing when a usage is released after its minute left the window', async () => {
    const partnerId = await newPartner(db, '100.00');
    const usageId = randomUUID();
    expect(await reserve(db, partnerId, '70.00', at('2030-01-01T18:00:00.000Z'), 'order', usageId)).toBe('reserved');
    expect(await reserve(db, partnerId, '30.00', at('2030-01-02T18:00:30.000Z'))).toBe('reserved');
    expect(await reserve(db, partnerId, '70.00', at('2030-01-02T18:01:00.000Z'))).toBe('reserved');
    expect((await new ReleaseDailyCapUseCase(db).execute({ usageId })).found).toBe(true);
    expect(await windowOf(db, partnerId)).toEqual({ openKes: '100.00', countedFrom: '2030-01-01T18:01:00.000Z' });
    await expectConsistent(db, partnerId);
  });

  describe("an order's placement (trading_place_order)", () => {
    const orders = () => new OrdersRepository(db);
    const PLACEMENT_TEXT_START = 'SELECT p.outcome, order_id AS %';

    /**
     * Resolves once a placement of this database waits on a lock (the partner's cap window, held by the test).
     * pg_stat_activity keeps a statement's first kilobyte only: the placement is known by its beginning.
     */
    async function placementWaiting(): Promise<void> {
      for (let attempt = 0; attempt < LOCK_WAIT_POLLS_MAX; attempt += 1) {
        const [{ waiting }] = await db.query(
          `SELECT count(*)::int AS waiting FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE $1`,
          [PLACEMENT_TEXT_START],
        );
        if (waiting > 0) return;
        await new Promise((resolve) => setTimeout(resolve, LOCK_WAIT_POLL_MS));
      }
      throw new Error('the placement never waited for the cap window');
    }

    /** A transaction of the test's own, rolled back when `work` leaves it open. */
    async function inTransaction(
      work: (runner: ReturnType<DataSource['createQueryRunner']>) => Promise<void>,
    ): Promise<void> {
      const runner = db.createQueryRunner();
      await runner.connect();
      try {
        await runner.startTransaction();
        await work(runner);
      } finally {
        if (runner.isTransactionActive) await runner.rollbackTransaction();
        await runner.release();
      }
    }

    it('consumes the quote and writes the order before it waits for the partner cap window', async () => {
      const partnerId = await newPartner(db, '1000.00');
      const now = new Date();
      expect(await reserve(db, partnerId, '100.00', now, 'transfer')).toBe('reserved');
      const quoteId = await insertBuyQuote(db, partnerId);
      await inTransaction(async (holder) => {
        await holder.query('SELECT 1 FROM cap_windows WHERE partner_id = $1 FOR UPDATE', [partnerId]);
        const placing = started(orders().place(buyOrderOn(partnerId, quoteId), '100.50', now));
        await placementWaiting();
        // The placement already holds its quote: the window is the last thing it waits for.
        await expect(db.query('SELECT 1 FROM quotes WHERE quote_id = $1 FOR UPDATE NOWAIT', [quoteId])).rejects.toThrow(
          'could not obtain lock',
        );
        await holder.commitTransaction();
        expect(await placing).toMatchObject({ outcome: 'placed', order: { quoteId } });
      });
      expect(await usedAt(db, partnerId, now)).toBe('200.50');
      await expectConsistent(db, partnerId);
    });

    it('refuses under the lock when a reservation committed meanwhile took the room, leaving no order and the quote usable', async () => {
      const partnerId = await newPartner(db, '150.00');
      const now = new Date();
      const quoteId = await insertBuyQuote(db, partnerId);
      const order = buyOrderOn(partnerId, quoteId);
      await inTransaction(async (holder) => {
        // Not committed yet: the placement's read of the window still finds the whole cap free.
        const amount = new Big('100.00');
        const usage = {
          usageId: randomUUID(),
          partnerId,
          source: 'transfer' as const,
          given: { currency: 'KES' as const, amount },
        };
        await reserveInTransaction(holder.manager, usage, amount, now);
        const placing = started(orders().place(order, '100.50', now));
        await placementWaiting();
        await holder.commitTransaction();
        expect(await placing).toEqual({ outcome: 'exceeded', order: null });
      });
      const left = await db.query(
        `SELECT (SELECT consumed_at FROM quotes WHERE quote_id = $1) AS "consumedAt",
                (SELECT count(*)::int FROM orders WHERE order_id = $2) AS orders,
                (SELECT count(*)::int FROM cap_usages WHERE usage_id = $2) AS usages`,
        [quoteId, order.orderId],
      );
      expect(left).toEqual([{ consumedAt: null, orders: 0, usages: 0 }]);
      expect(await usedAt(db, partnerId, now)).toBe('100.00');
      await expectConsistent(db, partnerId);
      // The quote given back serves an order the cap allows.
      expect((await orders().place(buyOrderOn(partnerId, quoteId), '50.00', now)).outcome).toBe('placed');
    });

    it('answers the cap before the quote, and refuses either without taking or creating the window', async () => {
      const partnerId = await newPartner(db, '100.00');
      const now = new Date();
      const consumed = await insertBuyQuote(db, partnerId, true);
      const outcome = async (capKes: string, partner = partnerId) =>
        (await orders().place(buyOrderOn(partner, consumed), capKes, now)).outcome;
      expect(await outcome('1.00', randomUUID())).toBe('partner_not_found');
      expect(await outcome('100.01')).toBe('exceeded');
      expect(await outcome('100.00')).toBe('quote_unavailable');
      expect(await windowOf(db, partnerId)).toBeNull();
      const usable = await insertBuyQuote(db, partnerId);
      expect((await orders().place(buyOrderOn(partnerId, usable), '100.00', now)).outcome).toBe('placed');
      expect(await outcome('0.01')).toBe('exceeded');
      await expectConsistent(db, partnerId);
    });
  });

  describe('with 100,000 open usages of the partner', () => {
    const now = at('2030-02-01T12:00:00.000Z');
    let partnerId: string;

    beforeAll(async () => {
      partnerId = await newPartner(db, '100000000.00');
      // One every 0.828 s over the 23 hours before `now`, as the bench seeds them.
      await db.query(
        `INSERT INTO cap_usages (usage_id, partner_id, source, amount_kes, given_currency, given_amount, created_at)
         SELECT gen_random_uuid(), $1, 'order', 100.00, 'KES', 100.00, $2::timestamptz - i * interval '828 milliseconds'
           FROM generate_series(1, 100000) AS i`,
        [partnerId, now],
      );
      // Other partners, so that the planner sees tables the size production has, not a handful of rows it would rather scan.
      await db.query(
        `INSERT INTO partner_profiles (partner_id, status, buy_mode, sell_mode, fee_bps, fee_flat_kes, per_order_cap_kes, daily_cap_kes)
         SELECT gen_random_uuid(), 'active', 'debit_first', 'deposit', 50, '0.00', 1000.00, 1000.00 FROM generate_series(1, 2000)`,
      );
      await db.query(
        `INSERT INTO cap_windows (partner_id, open_kes, counted_from) SELECT partner_id, 0, $1 FROM partner_profiles ON CONFLICT DO NOTHING`,
        [new Date(now.getTime() - 24 * 3_600_000)],
      );
      // Vacuumed and analysed now, as autovacuum would in time (and so autovacuum has nothing left to start on this database).
      for (const table of ['partner_profiles', 'cap_windows', 'cap_usages', 'cap_usage_buckets'])
        await db.query(`VACUUM (ANALYZE) ${table}`);
    }, 120_000);

    /**
     * Rows each table gave a statement run inside `work`'s transaction (sequential and by index), and its
     * sequential scans. `generic`: the functions' statements planned as a connection that has run them
     * more than five times plans them, once for any values.
     */
    async function readsOf(
      work: (manager: EntityManager) => Promise<unknown>,
      generic = false,
    ): Promise<Record<string, { rows: number; seqScans: number }>> {
      return db.transaction(async (manager) => {
        if (generic) await manager.query('SET LOCAL plan_cache_mode = force_generic_plan');
        const sql = `SELECT relname AS "table", seq_scan AS "seqScans", coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) AS rows
                       FROM pg_stat_xact_user_tables WHERE relname IN ('cap_usages', 'cap_usage_buckets', 'cap_windows', 'partner_profiles')`;
        const before: Array<{ table: string; seqScans: string; rows: string }> = await manager.query(sql);
        await work(manager);
        const after: Array<{ table: string; seqScans: string; rows: string }> = await manager.query(sql);
        const reads: Record<string, { rows: number; seqScans: number }> = {};
        for (const row of after) {
          const earlier = before.find((candidate) => candidate.table === row.table);
          reads[row.table] = {
            rows: Number(row.rows) - Number(earlier?.rows ?? 0),
            seqScans: Number(row.seqScans) - Number(earlier?.seqScans ?? 0),
          };
        }
        return reads;
      });
    }

    const reservation = (time: Date) => (manager: EntityManager) =>
      reserveInTransaction(
        manager,
        { usageId: randomUUID(), partnerId, source: 'order', given: { currency: 'KES', amount: new Big('100.00') } },
        new Big('100.00'),
        time,
      );

    // The second case goes on from where the first left the window (an hour and two minutes on), so each
    // move drops at most the minute or two that left.
    it.each([
      { plans: 'planned for its values', generic: false, startMs: 0, hourLater: true },
      { plans: 'planned once for any values (generic)', generic: true, startMs: 3_780_000, hourLater: false },
    ])(
      'reads a handful of rows per reservation, each through an index: $plans',
      async ({ generic, startMs, hourLater }) => {
        const start = new Date(now.getTime() + startMs);
        // The window sum the reservation used to run, for comparison: every open usage of the window.
        const sum = await readsOf((manager) =>
          manager.query(
            `SELECT coalesce(sum(amount_kes), 0) FROM cap_usages
            WHERE partner_id = $1 AND released_at IS NULL AND created_at > $2::timestamptz - interval '24 hours'`,
            [partnerId, start],
          ),
        );
        expect(sum.cap_usages.rows).toBeGreaterThanOrEqual(95_000);

        const first = await readsOf(reservation(start), generic);
        // Thirty seconds later, in the minute the first opened: added to its bucket.
        const sameMinute = await readsOf(reservation(new Date(start.getTime() + 30_000)), generic);
        // One minute later the window moves (a primary-key range of the minutes that left, none or one).
        const nextMinute = await readsOf(reservation(new Date(start.getTime() + 60_000)), generic);
        const measured = [first, sameMinute, nextMinute];
        // An hour and two minutes after `now` the two oldest minutes of usages (about 145) leave, as two bucket rows.
        const later = new Date(start.getTime() + (hourLater ? 3_720_000 : 60_000));
        if (hourLater) {
          const nextHour = await readsOf(reservation(later), generic);
          expect(nextHour.cap_usage_buckets.rows).toBe(2);
          measured.push(nextHour);
        }
        for (const reads of measured) {
          for (const table of Object.values(reads)) expect(table.seqScans).toBe(0);
          // The profile (1), the window (locked, moved when a minute has passed, locked and added to by the
          // trigger: 3 or 4), the minutes that left and the minute added to (0–2).
          expect(reads.partner_profiles.rows).toBe(1);
          expect(reads.cap_windows.rows).toBeGreaterThanOrEqual(3);
          expect(reads.cap_windows.rows).toBeLessThanOrEqual(4);
          expect(reads.cap_usages.rows).toBe(0);
          expect(reads.cap_usage_buckets?.rows ?? 0).toBeLessThanOrEqual(2);
        }
        const [{ kes }] = await db.query(
          'SELECT sum(amount_kes)::text AS kes FROM cap_usages WHERE partner_id = $1 AND released_at IS NULL AND created_at >= $2',
          [partnerId, new Date(later.getTime() - 24 * 3_600_000)],
        );
        expect(await usedAt(db, partnerId, later)).toBe(kes);
        await expectConsistent(db, partnerId);
      },
    );
  });
});

describe('the migration to the cap by the minute', () => {
  let scratch: ScratchDatabase;

  beforeAll(async () => {
    scratch = await createScratchDatabase('trading_cap_migration');
  });

  afterAll(async () => {
    await scratch?.drop();
  });

  it('keeps counting the open usages of the last 24 hours written before it, and those the previous release still writes', async () => {
    const before = await migrated(scratch.url, false);
    const active = await newPartner(before, '100.00');
    const quiet = await newPartner(before, '100.00');
    const old = await newPartner(before, '100.00');
    const usage = (partnerId: string, amountKes: string, age: string, released = false) =>
      before.query(
        `INSERT INTO cap_usages (usage_id, partner_id, source, amount_kes, given_currency, given_amount, created_at, released_at)
         VALUES ($1, $2, 'order', $3, 'KES', $3, now() - $4::interval, CASE WHEN $5 THEN now() END)`,
        [randomUUID(), partnerId, amountKes, age, released],
      );
    await usage(active, '10.00', '1 hour');
    await usage(active, '20.00', '23 hours 55 minutes');
    await usage(active, '40.00', '2 hours', true); // released: never counts
    await usage(active, '50.00', '24 hours 5 minutes'); // outside the window
    await usage(old, '80.00', '3 days');
    const [{ oldUsageId }] = await before.query(
      'SELECT usage_id AS "oldUsageId" FROM cap_usages WHERE partner_id = $1',
      [old],
    );
    const [{ startedAt }] = await before.query(`SELECT date_trunc('minute', now()) AS "startedAt"`);
    await before.destroy();

    const db = await migrated(scratch.url);
    try {
      const [{ endedAt }] = await db.query(`SELECT date_trunc('minute', now()) AS "endedAt"`);
      const windows = await Promise.all([active, quiet, old].map((partnerId) => windowOf(db, partnerId)));
      expect(windows.map((window) => window?.openKes)).toEqual(['30.00', '0.00', '0.00']);
      for (const window of windows) {
        const countedFromMs = Date.parse(window?.countedFrom ?? '');
        expect(countedFromMs).toBeGreaterThanOrEqual(new Date(startedAt).getTime() - 24 * 3_600_000);
        expect(countedFromMs).toBeLessThanOrEqual(new Date(endedAt).getTime() - 24 * 3_600_000);
      }
      for (const partnerId of [active, quiet, old]) await expectConsistent(db, partnerId);

      // Written the previous release's way: no created_at, the database's clock.
      await db.query(
        `INSERT INTO cap_usages (usage_id, partner_id, source, amount_kes, given_currency, given_amount) VALUES ($1, $2, 'transfer', 5.00, 'KES', 5.00)`,
        [randomUUID(), active],
      );
      expect(await usedAt(db, active, new Date())).toBe('35.00');
      expect(await reserve(db, active, '65.01', new Date())).toBe('ORDER_EXCEEDS_DAILY_CAP');
      expect(await reserve(db, active, '65.00', new Date())).toBe('reserved');
      // The previous release's window sum agrees with the window.
      const [{ oldSum }] = await db.query(
        `SELECT sum(amount_kes)::text AS "oldSum" FROM cap_usages WHERE partner_id = $1 AND released_at IS NULL AND created_at > now() - interval '24 hours'`,
        [active],
      );
      expect(oldSum).toBe('100.00');

      expect((await new ReleaseDailyCapUseCase(db).execute({ usageId: oldUsageId })).found).toBe(true);
      expect(await windowOf(db, old)).toMatchObject({ openKes: '0.00' });
      for (const partnerId of [active, quiet, old]) await expectConsistent(db, partnerId);
    } finally {
      await db.destroy();
    }
  });
});
