// Proves the ledger's hot reads and writes cost the same whatever the data around them: a
// scratch database with the ledger's migrations, account sets for 10,000 partners, and for
// a hot partner (and a few others) a history of settled entries with their postings, resolved
// holds and the statement lines the triggers write. Each hot operation runs through its own
// repository functions (the statements the service sends, named there) with every statement
// planned by EXPLAIN (ANALYZE). The histories then grow a hundredfold (others' tenfold) and
// the same operations run again:
// - no statement reads a table that grows (accounts with the partners, the journal, holds,
//   statement lines) sequentially;
// - rows examined per table stay within 1.2× (and a few rows) of the run before.
// What the triggers read inside a statement is counted from the statement's own table
// statistics (libs/testing explaining), beside its plan. Then the hold operations of an order
// run again with 30, then 630 of the hot partner's holds in flight (pending, placed after the
// statistics were taken) and must read the same rows: a hold is found by its primary key.
import { randomUUID } from 'node:crypto';
import { Big } from '@platform/money';
import { DataSource, EntityManager } from '@platform/persistence';
import {
  describeFlatQueries,
  ExplainingQueryable,
  growth,
  MeasuredOperation,
  measureOperations,
} from '@platform/testing';
import { AccountsRepository } from '../src/persistence/accounts.repository';
import { ledgerDataSource } from '../src/persistence/data-source';
import { EntriesRepository } from '../src/persistence/entries.repository';
import { HoldsRepository } from '../src/persistence/holds.repository';
import { lockAccounts, postEntry } from '../src/persistence/journal.repository';

const GROWING_TABLES = ['accounts', 'partner_accounts', 'entries', 'postings', 'holds', 'statement_lines'] as const;
const PARTNERS = 10_000;
const HISTORY_PARTNERS = 4;
/** Settled entries (and as many resolved holds) per partner before, and added after, for the hot partner and the others. */
const HISTORY = { hotBefore: 200, hotAdded: 20_000, otherBefore: 100, otherAdded: 1_000 };
const SEED_TIMEOUT_MS = 300_000;
/** Enough on the hot partner's KES account for every measured hold and post. */
const OPENING_KES = '1000000000.00';

interface Partner {
  partnerId: string;
  kesAccountId: string;
  usdtAccountId: string;
}

/** `count` partners with their three accounts and account set, in two statements. */
async function seedPartners(db: DataSource, count: number): Promise<void> {
  await db.query(
    `WITH made AS (SELECT gen_random_uuid() AS partner_id, g FROM generate_series(1, $1::int) AS g),
     accounts_made AS (
       INSERT INTO accounts (currency, partner_id, allow_negative)
       SELECT currency, partner_id, false FROM made, unnest(ARRAY['KES', 'USDT', 'USD']) AS currency
       RETURNING id, currency, partner_id
     )
     INSERT INTO partner_accounts (partner_id, kes_account_id, usdt_account_id, usd_account_id, kes_account_reference, usdt_deposit_address)
     SELECT made.partner_id, kes.id, usdt.id, usd.id, lpad(made.g::text, 11, '0'), 'T' || lpad(made.g::text, 33, '0')
       FROM made
       JOIN accounts_made kes ON kes.partner_id = made.partner_id AND kes.currency = 'KES'
       JOIN accounts_made usdt ON usdt.partner_id = made.partner_id AND usdt.currency = 'USDT'
       JOIN accounts_made usd ON usd.partner_id = made.partner_id AND usd.currency = 'USD'`,
    [count],
  );
}

async function somePartners(db: DataSource, count: number): Promise<Partner[]> {
  const rows: { partner_id: string; kes_account_id: string; usdt_account_id: string }[] = await db.query(
    'SELECT partner_id, kes_account_id, usdt_account_id FROM partner_accounts ORDER BY kes_account_reference LIMIT $1',
    [count],
  );
  return rows.map((row) => ({
    partnerId: row.partner_id,
    kesAccountId: row.kes_account_id,
    usdtAccountId: row.usdt_account_id,
  }));
}

/**
 * `count` settled entries of the partner (its KES account −100, treasury KES +100, each with
 * its two postings and the statement line the trigger writes) and as many voided holds, after
 * an opening credit from bank clearing when `opening` is given. Versions and balances follow
 * on from the accounts' own, so the ledger check's invariants hold for the rows written.
 */
async function seedHistory(db: DataSource, partner: Partner, count: number, opening: string | null): Promise<void> {
  const treasury = await serviceAccount(db, 'treasury', 'KES');
  if (opening) await credit(db, partner, opening);
  await db.query(
    `WITH made AS (
       SELECT gen_random_uuid() AS entry_id, g FROM generate_series(1, $3::int) AS g
     ), base AS (
       SELECT (SELECT posted FROM accounts WHERE id = $1) AS partner_posted, (SELECT version FROM accounts WHERE id = $1) AS partner_version,
              (SELECT posted FROM accounts WHERE id = $2) AS treasury_posted, (SELECT version FROM accounts WHERE id = $2) AS treasury_version
     ), entry AS (
       INSERT INTO entries (id, kind, partner_id, request_hash, metadata)
       SELECT entry_id, 'order_buy_settlement', $4, 'seed', jsonb_build_object('orderId', gen_random_uuid()::text) FROM made
     ), moved AS (
       UPDATE accounts SET posted = posted + CASE WHEN id = $1 THEN -100 ELSE 100 END * $3::int, version = version + $3::int
        WHERE id IN ($1, $2)
     )
     INSERT INTO postings (entry_id, account_id, currency, amount, balance_after, version_after)
     SELECT made.entry_id, leg.account_id, 'KES', leg.amount, leg.balance_after, leg.version_after
       FROM made, base, LATERAL (VALUES
         ($1::uuid, -100::numeric, base.partner_posted - 100 * made.g, base.partner_version + made.g),
         ($2::uuid, 100::numeric, base.treasury_posted + 100 * made.g, base.treasury_version + made.g)
       ) AS leg(account_id, amount, balance_after, version_after)
      ORDER BY made.g`,
    [partner.kesAccountId, treasury, count, partner.partnerId],
  );
  await db.query(
    `INSERT INTO holds (id, account_id, currency, amount, status, request_hash, resolution_hash, metadata, owner, resolved_at, created_at)
     SELECT gen_random_uuid(), $1, 'KES', 100.00, 'voided', 'seed', 'seed', '{}', 'trading:order:' || gen_random_uuid(), now(),
            now() - g * interval '1 minute'
       FROM generate_series(1, $2::int) AS g`,
    [partner.kesAccountId, count],
  );
}

/** Bank clearing KES −amount, the partner's KES account +amount: one entry, as a KES credit books it. */
async function credit(db: DataSource, partner: Partner, amount: string): Promise<void> {
  const bankClearing = await serviceAccount(db, 'bank_clearing', 'KES');
  await db.transaction((manager) =>
    postEntry(
      manager,
      {
        entryId: randomUUID(),
        kind: 'kes_credit',
        partnerId: partner.partnerId,
        postings: [
          { accountId: bankClearing, currency: 'KES', amount: new Big(amount).times(-1) },
          { accountId: partner.kesAccountId, currency: 'KES', amount: new Big(amount) },
        ],
        metadata: {},
      },
      'seed',
    ),
  );
}

async function serviceAccount(db: DataSource, code: string, currency: string): Promise<string> {
  const [row] = await db.query('SELECT id FROM accounts WHERE code = $1 AND currency = $2', [code, currency]);
  return row.id;
}

async function analyse(db: DataSource): Promise<void> {
  for (const table of ['accounts', 'partner_accounts', 'entries', 'postings', 'holds', 'statement_lines'])
    await db.query(`VACUUM (ANALYZE) ${table}`);
}

interface Live {
  partner: Partner;
  service: { treasuryKes: string; feeRevenueKes: string; treasuryUsdt: string };
  /** A hold placed for this measurement (posted by one operation), and one to void. */
  holdToPost: string;
  holdToVoid: string;
  /** A hold placed and posted by the measurement itself. */
  newHold: string;
  entryId: string;
}

const manager = (queryable: ExplainingQueryable) => queryable as unknown as EntityManager;
const holds = new HoldsRepository();
const entries = new EntriesRepository();

/** The settlement of a debit-first buy, as trading posts it: KES to treasury and fee revenue, USDT from treasury. */
function settlementPostings(live: Live, holdAmount: Big) {
  return [
    { accountId: live.partner.kesAccountId, currency: 'KES' as const, amount: holdAmount.times(-1) },
    { accountId: live.service.treasuryKes, currency: 'KES' as const, amount: holdAmount.minus('0.50') },
    { accountId: live.service.feeRevenueKes, currency: 'KES' as const, amount: new Big('0.50') },
    { accountId: live.service.treasuryUsdt, currency: 'USDT' as const, amount: new Big('-0.769231') },
    { accountId: live.partner.usdtAccountId, currency: 'USDT' as const, amount: new Big('0.769231') },
  ];
}

/** Places a hold's row and held amount as PlaceHold does, after locking its account. */
async function placeHold(q: ExplainingQueryable, live: Live, holdId: string): Promise<void> {
  await holds.lockHoldId(manager(q), holdId);
  await holds.find(manager(q), holdId);
  await lockAccounts(manager(q), [live.partner.kesAccountId]);
  await holds.place(manager(q), {
    holdId,
    accountId: live.partner.kesAccountId,
    currency: 'KES',
    amount: new Big('100.50'),
    expiresAt: null,
    metadata: { kind: 'order_buy' },
    requestHash: 'live',
    owner: `trading:order:${holdId}`,
  });
}

/** Posts a pending hold as PostHold does: the hold row, its accounts, the entry with the held release, the resolution. */
async function postHold(q: ExplainingQueryable, live: Live, holdId: string): Promise<void> {
  const hold = (await holds.findForUpdate(manager(q), holdId))!;
  const postings = settlementPostings(live, new Big(hold.amount));
  const locked = await lockAccounts(
    manager(q),
    postings.map((posting) => posting.accountId),
  );
  const entryId = randomUUID();
  await postEntry(
    manager(q),
    { entryId, kind: 'order_buy_settlement', partnerId: live.partner.partnerId, postings, metadata: { holdId } },
    'live',
    locked,
    { accountId: hold.accountId, amount: new Big(hold.amount) },
  );
  await holds.resolve(manager(q), holdId, {
    status: 'posted',
    postedAmount: new Big(hold.amount),
    entryId,
    resolutionHash: 'live',
  });
}

/** The hot path's statements, by operation. */
function operations(): Record<string, (queryable: ExplainingQueryable, live: Live) => Promise<unknown>> {
  const accounts = (q: ExplainingQueryable) => new AccountsRepository(q as unknown as DataSource);
  return {
    'read a partner account set (GetPartnerAccounts)': (q, live) =>
      accounts(q).findPartnerAccounts(live.partner.partnerId),
    'read a partner account set with its KES balance (GetPartnerAccounts)': (q, live) =>
      accounts(q).findPartnerAccountsWithKesBalance(live.partner.partnerId),
    'read a service account balance over its shards': (q, live) => accounts(q).serviceBalance(live.service.treasuryKes),
    'read a partner balances (GetBalances)': (q, live) => accounts(q).partnerBalances(live.partner.partnerId),
    'find an account set by KES reference': (q) => accounts(q).findByKesReference('00000000001', manager(q)),
    'find an account set by deposit address': (q) => accounts(q).findByDepositAddress(`T${'0'.repeat(32)}1`),
    'read the service accounts': (q) => accounts(q).serviceAccountId('treasury', 'KES'),
    'place a hold (PlaceHold)': (q, live) => placeHold(q, live, live.newHold),
    'post a hold (PostHold)': (q, live) => postHold(q, live, live.holdToPost),
    'void a hold (VoidHold)': async (q, live) => {
      const hold = (await holds.findForUpdate(manager(q), live.holdToVoid))!;
      await holds.release(manager(q), hold, 'voided', 'void');
    },
    'read a hold (GetHold)': (q, live) => holds.find(manager(q), live.holdToPost),
    'post an entry (PostEntry)': async (q, live) => {
      await entries.lockEntryId(manager(q), live.entryId);
      await entries.find(manager(q), live.entryId);
      const postings = [
        { accountId: live.service.treasuryKes, currency: 'KES' as const, amount: new Big('-1.00') },
        { accountId: live.partner.kesAccountId, currency: 'KES' as const, amount: new Big('1.00') },
      ];
      await postEntry(
        manager(q),
        { entryId: live.entryId, kind: 'adjustment', partnerId: live.partner.partnerId, postings, metadata: {} },
        'live',
      );
    },
    'list an account history page': (q, live) =>
      entries.history(q as unknown as DataSource, live.partner.kesAccountId, null, 50),
    'claim expired holds (sweeper)': (q) => holds.claimExpired(manager(q), 100),
    'list owned pending holds (reconcilers)': (q) =>
      holds.listOwnedPending(manager(q), {
        ownerPrefix: 'trading:',
        placedBefore: new Date(),
        afterHoldId: null,
        limit: 500,
      }),
  };
}

/**
 * Pending holds of the hot partner's orders in flight, placed before each of two measurements of
 * an order's hold operations: twenty times more the second time, as a busier partner has. Placed
 * after the statistics were taken, as an order burst's are, so the planner believes pending holds
 * few: a statement that names `status = 'pending'` may then walk a partial index of pending holds
 * rather than the primary key, reading every hold in flight.
 */
const HOLDS_IN_FLIGHT = [30, 600];
/** An order's operations on holds, measured against the holds in flight. */
const HOLD_OPERATIONS = [
  'place a hold (PlaceHold)',
  'post a hold (PostHold)',
  'void a hold (VoidHold)',
  'read a hold (GetHold)',
];

/** `count` pending holds on the hot partner's KES account, each placed as PlaceHold places one. */
async function placeInFlight(db: DataSource, hot: Partner, count: number): Promise<void> {
  for (let index = 0; index < count; index += 1) {
    const holdId = randomUUID();
    await db.transaction((m) =>
      holds.place(m, {
        holdId,
        accountId: hot.kesAccountId,
        currency: 'KES',
        amount: new Big('100.50'),
        expiresAt: null,
        metadata: { kind: 'order_buy' },
        requestHash: 'in-flight',
        owner: `trading:order:${holdId}`,
      }),
    );
  }
}

/** Two holds placed for the measurement (one to post, one to void), and the service accounts a settlement names. */
async function liveNow(db: DataSource, hot: Partner): Promise<Live> {
  const live: Live = {
    partner: hot,
    service: {
      treasuryKes: await serviceAccount(db, 'treasury', 'KES'),
      feeRevenueKes: await serviceAccount(db, 'fee_revenue', 'KES'),
      treasuryUsdt: await serviceAccount(db, 'treasury', 'USDT'),
    },
    holdToPost: randomUUID(),
    holdToVoid: randomUUID(),
    newHold: randomUUID(),
    entryId: randomUUID(),
  };
  for (const holdId of [live.holdToPost, live.holdToVoid])
    await db.transaction((m) =>
      holds.place(m, {
        holdId,
        accountId: hot.kesAccountId,
        currency: 'KES',
        amount: new Big('100.50'),
        expiresAt: null,
        metadata: {},
        requestHash: 'live',
        owner: `trading:order:${holdId}`,
      }),
    );
  return live;
}

describeFlatQueries({
  title: 'ledger hot queries against 10,000 partners and a growing history',
  scratchName: 'ledger_query_plans',
  serviceDataSource: ledgerDataSource,
  growingTables: GROWING_TABLES,
  timeoutMs: SEED_TIMEOUT_MS,
  async seedBefore(db) {
    await seedPartners(db, PARTNERS);
    const [hot, ...others] = await somePartners(db, HISTORY_PARTNERS);
    await seedHistory(db, hot, HISTORY.hotBefore, OPENING_KES);
    for (const partner of others) await seedHistory(db, partner, HISTORY.otherBefore, '1000000.00');
    return { hot, others };
  },
  async seedAdded(db, { hot, others }) {
    await seedHistory(db, hot, HISTORY.hotAdded, null);
    for (const partner of others) await seedHistory(db, partner, HISTORY.otherAdded, null);
  },
  analyse,
  liveContext: (db, { hot }) => liveNow(db, hot),
  operations: () => operations(),
  minimumRows: {
    accounts: 3 * PARTNERS,
    postings: 2 * HISTORY.hotAdded,
    statement_lines: HISTORY.hotAdded,
    holds: HISTORY.hotAdded,
  },
  moreChecks(database) {
    it('runs an order hold operations reading the same rows with twenty times the holds in flight', async () => {
      const db = database();
      const [hot] = await somePartners(db, 1);
      const all = operations();
      const holdOperations = Object.fromEntries(HOLD_OPERATIONS.map((name) => [name, all[name]]));
      const measured: Record<string, MeasuredOperation>[] = [];
      for (const count of HOLDS_IN_FLIGHT) {
        await placeInFlight(db, hot, count);
        measured.push(await measureOperations(db, holdOperations, await liveNow(db, hot), GROWING_TABLES));
      }
      const [few, many] = measured;
      const offending = HOLD_OPERATIONS.map((name) => ({
        name,
        seqScans: [...few[name].seqScans, ...many[name].seqScans],
        grown: growth(few[name].rows, many[name].rows),
        scans: many[name].scans,
      })).filter((operation) => operation.seqScans.length + operation.grown.length > 0);
      expect(offending).toEqual([]);
      // The hold locked, its status read and the hold resolved, each by its key; the statement line's hold.
      expect(few['post a hold (PostHold)'].rows.holds).toBeLessThanOrEqual(6);
    });

    it('leaves the seeded ledger reconciled (the invariants the check reads)', async () => {
      const problems = await database().query(
        `SELECT a.id FROM accounts a
           LEFT JOIN LATERAL (SELECT available_after FROM statement_lines WHERE account_id = a.id
                               ORDER BY created_at DESC, id DESC LIMIT 1) l ON true
          WHERE a.partner_id IS NOT NULL AND coalesce(l.available_after, 0) <> a.posted - a.held
         UNION ALL
         SELECT a.id FROM accounts a
           LEFT JOIN (SELECT account_id, sum(amount) AS total FROM postings GROUP BY account_id) p ON p.account_id = a.id
          WHERE a.posted <> coalesce(p.total, 0)`,
      );
      expect(problems).toEqual([]);
    });
  },
});
