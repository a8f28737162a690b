// Proves collections' hot reads and writes cost the same whatever the history around them:
// a scratch database with this service's migrations, credited (and a few refunded or
// expired) collections with their deposits seeded for many partners, and each hot
// operation run through its own repository with every statement planned by EXPLAIN
// (ANALYZE); the hot partner's history then grows a hundredfold (the others' tenfold) and
// the same operations run again (libs/testing describeFlatQueries states the checks).
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager, KeysetPosition, PageBounds } from '@platform/persistence';
import {
  DAY_OF_HOT_HISTORY,
  describeFlatQueries,
  ExplainingQueryable,
  HistorySeed,
  PlannedOperation,
  seedHistories,
} from '@platform/testing';
import { collectionsDataSource } from '../src/persistence/data-source';
import { CollectionsRepository } from '../src/persistence/collections.repository';
import { DepositsRepository } from '../src/persistence/deposits.repository';

const GROWING_TABLES = ['collections', 'deposits'] as const;
const OTHER_PARTNERS = 40;
/** Collections (each with its deposit) per partner before, and added after, for the hot partner and the others. */
const HISTORY = DAY_OF_HOT_HISTORY;
/**
 * One collection in this many of the first history was refunded, the next one expired; the
 * rest, and all the history added later, were credited: a page of the rare statuses must
 * not cost the partner's whole history.
 */
const RARE_EVERY = 50;
const SEED_TIMEOUT_MS = 240_000;
/** Claims lease an hour ahead, so what one measurement claimed is not due again in the next. */
const LEASE_MS = 3_600_000;

/**
 * `count` closed collections of the partner, one every `stepMs` back from `before`, with their
 * deposits, references ref-<n> from `first` on; in the first history one in RARE_EVERY refunded
 * and the next expired.
 */
async function seedHistory(db: DataSource, partnerId: string, seed: HistorySeed): Promise<void> {
  const rareEvery = seed.firstHistory ? RARE_EVERY : 0;
  await db.query(
    `WITH made AS (
       SELECT gen_random_uuid() AS id, $2::timestamptz - g * make_interval(secs => $3::double precision / 1000) AS at,
              $4::int + g - 1 AS n,
              CASE WHEN $6::int > 0 AND g % $6::int = 0 THEN 'refunded'
                   WHEN $6::int > 0 AND g % $6::int = 1 THEN 'expired' ELSE 'credited' END AS status
         FROM generate_series(1, $5::int) AS g
     ), collected AS (
       INSERT INTO collections (id, partner_id, reference, partner_reference, request_hash, payer_label, currency, status,
                                account_number, fee_percent_bps, fee_flat_minor, fee_cap_minor, gross_amount, fee_amount,
                                net_amount, deposit_id, credit_entry_id, refund_reason, created_at, expires_at, received_at,
                                credited_at, closed_at)
       SELECT id, $1, 'COL-' || replace(id::text, '-', ''), 'ref-' || n, 'hash', 'Payer', 'USD', status, '9900112233', 100, 0, 0,
              CASE WHEN status = 'expired' THEN NULL ELSE 100.00 END, CASE WHEN status = 'credited' THEN 1.00 END,
              CASE WHEN status = 'credited' THEN 99.00 END, CASE WHEN status = 'expired' THEN NULL ELSE 'DEP-' || id END,
              CASE WHEN status = 'credited' THEN gen_random_uuid() END,
              CASE WHEN status = 'refunded' THEN 'amount_mismatch' END, at, at + interval '1 day',
              CASE WHEN status = 'expired' THEN NULL ELSE at + interval '1 hour' END,
              CASE WHEN status = 'credited' THEN at + interval '1 hour' END, at + interval '1 hour'
         FROM made
       RETURNING id, status, deposit_id, received_at
     )
     INSERT INTO deposits (deposit_id, collection_id, amount, sender_name, disposition, refund_reason, received_at)
     SELECT deposit_id, id, 100.00, 'Payer', CASE WHEN status = 'refunded' THEN 'refunded' ELSE 'accepted' END,
            CASE WHEN status = 'refunded' THEN 'amount_mismatch' END, received_at
       FROM collected WHERE deposit_id IS NOT NULL`,
    [partnerId, seed.before, seed.stepMs, seed.first, seed.count, rareEvery],
  );
}

async function analyse(db: DataSource): Promise<void> {
  for (const table of [...GROWING_TABLES, 'collection_fee_terms']) await db.query(`VACUUM (ANALYZE) ${table}`);
}

/** The live rows one measurement works on, as the hot path meets them. */
interface Live {
  partnerId: string;
  /** An open collection, and one received and due for its credit step. */
  openId: string;
  receivedId: string;
  openReference: string;
  partnerReference: string;
  /** The keyset position of the partner's 50th newest collection: a full page follows. */
  cursor: KeysetPosition;
}

async function seedLive(db: DataSource, partnerId: string): Promise<Live> {
  const openId = randomUUID();
  const receivedId = randomUUID();
  const partnerReference = `live-${openId}`;
  const openReference = `COL-${openId.replace(/-/g, '')}`;
  await db.query(
    `INSERT INTO collections (id, partner_id, reference, partner_reference, request_hash, payer_label, currency, status,
                              account_number, fee_percent_bps, fee_flat_minor, fee_cap_minor, created_at, expires_at)
     VALUES ($1, $2, $3, $4, 'hash', 'Payer', 'USD', 'open', '9900112233', 100, 0, 0, now(), now() + interval '1 day')`,
    [openId, partnerId, openReference, partnerReference],
  );
  await db.query(
    `INSERT INTO collections (id, partner_id, reference, partner_reference, request_hash, payer_label, currency, status,
                              account_number, fee_percent_bps, fee_flat_minor, fee_cap_minor, gross_amount, fee_amount,
                              net_amount, deposit_id, credit_entry_id, created_at, expires_at, received_at, next_step_at)
     VALUES ($1, $2, $3, $4, 'hash', 'Payer', 'USD', 'received', '9900112233', 100, 0, 0, 100.00, 1.00, 99.00, $5,
             gen_random_uuid(), now(), now() + interval '1 day', now(), now() - interval '1 second')`,
    [receivedId, partnerId, `COL-${receivedId.replace(/-/g, '')}`, `live-${receivedId}`, `DEP-${receivedId}`],
  );
  const [cursor] = (await db.query(
    `SELECT created_at::text AS "createdAt", id FROM collections WHERE partner_id = $1
      ORDER BY created_at DESC, id DESC OFFSET 49 LIMIT 1`,
    [partnerId],
  )) as KeysetPosition[];
  return { partnerId, openId, receivedId, openReference, partnerReference, cursor };
}

const page: PageBounds = { from: null, to: null, after: null, fetchLimit: 101, pageLimit: 100 };
const collections = new CollectionsRepository();
const deposits = new DepositsRepository();
const manager = (queryable: ExplainingQueryable) => queryable as unknown as EntityManager;

/** The hot path's statements on the tables that grow, by operation, in the order they run. */
const operations: Record<string, PlannedOperation<Live>> = {
  'find by partner reference': (q, live) =>
    collections.findByPartnerReference(manager(q), live.partnerId, live.partnerReference),
  'find one of the partner': (q, live) => collections.findForPartner(manager(q), live.partnerId, live.openId),
  'lock one of the partner': (q, live) => collections.findForPartner(manager(q), live.partnerId, live.openId, true),
  'lock one by id': (q, live) => collections.lockById(manager(q), live.receivedId),
  'newest 100': (q, live) =>
    collections.list(manager(q), { partnerId: live.partnerId, reference: null, status: null, page }),
  'next page by cursor': (q, live) =>
    collections.list(manager(q), {
      partnerId: live.partnerId,
      reference: null,
      status: null,
      page: { ...page, after: live.cursor },
    }),
  'newest refunded': (q, live) =>
    collections.list(manager(q), { partnerId: live.partnerId, reference: null, status: 'refunded', page }),
  'by reference': (q, live) =>
    collections.list(manager(q), { partnerId: live.partnerId, reference: live.openReference, status: null, page }),
  'claim due credits': (q) => collections.claimDueForCredit(manager(q), 50, LEASE_MS),
  'expire due ones': (q) => collections.expireDue(manager(q), 100),
  'find a deposit': (q, live) => deposits.find(manager(q), `DEP-${live.receivedId}`),
};

describeFlatQueries({
  title: 'collections hot queries against a growing history',
  scratchName: 'collections_query_plans',
  serviceDataSource: collectionsDataSource,
  growingTables: GROWING_TABLES,
  timeoutMs: SEED_TIMEOUT_MS,
  async seedBefore(db) {
    const others = Array.from({ length: OTHER_PARTNERS }, () => randomUUID());
    const partners = { hotPartner: randomUUID(), others, now: new Date() };
    await seedHistories(db, partners, HISTORY, 'before', seedHistory);
    return partners;
  },
  seedAdded: (db, partners) => seedHistories(db, partners, HISTORY, 'added', seedHistory),
  analyse,
  liveContext: (db, { hotPartner }) => seedLive(db, hotPartner),
  operations: () => operations,
  minimumRows: {
    collections: HISTORY.hotAdded + OTHER_PARTNERS * HISTORY.otherAdded,
    deposits: HISTORY.hotAdded + OTHER_PARTNERS * HISTORY.otherAdded,
  },
});
