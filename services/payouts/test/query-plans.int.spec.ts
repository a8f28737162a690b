// Proves payouts' hot reads and writes cost the same whatever the history around them: a
// scratch database with this service's migrations, settled (and some failed) transfers with
// their payout instructions, USDT sends, transfer batches and mobile-money prompts seeded
// for many partners, and each hot operation run through its own repository with every
// statement planned by EXPLAIN (ANALYZE). The hot partner's history then grows a
// hundredfold (other partners' tenfold) and the same operations run again:
// - no statement reads a table that grows sequentially;
// - rows examined per table stay within 1.2× (and a few rows) of the run before.
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
import { payoutsDataSource } from '../src/persistence/data-source';
import { MobileMoneyPushesRepository } from '../src/persistence/mobile-money-pushes.repository';
import { PayoutInstructionsRepository } from '../src/persistence/payout-instructions.repository';
import { TransferBatchesRepository } from '../src/persistence/transfer-batches.repository';
import { TransfersRepository } from '../src/persistence/transfers.repository';
import { UsdtSendsRepository } from '../src/persistence/usdt-sends.repository';

const GROWING_TABLES = [
  'transfers',
  'payout_instructions',
  'usdt_sends',
  'transfer_batches',
  'transfer_batch_items',
  'mobile_money_pushes',
  'confirmations',
] as const;
const OTHER_PARTNERS = 40;
/** Rows of each kind per partner before, and added after, for the hot partner and the others. */
const HISTORY = DAY_OF_HOT_HISTORY;
/**
 * One row in this many of the first history failed (declined for prompts); the rest, and all
 * the history added later, settled (credited): failures stay rare while history grows, so a
 * page of failed rows must not cost the partner's whole history.
 */
const FAILED_EVERY = 50;
const SEED_TIMEOUT_MS = 300_000;
/** Claims lease an hour ahead, so what one measurement claimed is not due again in the next. */
const LEASE_MS = 3_600_000;

/**
 * `count` finished transfers of the partner (each with its payout instruction), USDT sends
 * and mobile-money prompts and transfer batches, one every `stepMs` back from
 * `before`, keys and references key-<n> and ref-<n> from `first` on: in the first history every
 * FAILED_EVERY-th failed (declined), the rest (and all that is added) settled (credited).
 */
async function seedHistory(db: DataSource, partnerId: string, seed: HistorySeed): Promise<void> {
  const failedEvery = seed.firstHistory ? FAILED_EVERY : 0;
  const parameters = [partnerId, seed.before, seed.stepMs, seed.first, seed.count, failedEvery];
  const made = `SELECT $2::timestamptz - g * make_interval(secs => $3::double precision / 1000) AS at, $4::int + g - 1 AS n,
                       $6::int > 0 AND g % $6::int = 0 AS failed
                  FROM generate_series(1, $5::int) AS g`;
  await db.query(
    `WITH made AS (${made}), sent AS (
       INSERT INTO transfers (transfer_id, partner_id, idempotency_key, request_hash, partner_reference, rail, account_number,
                              account_name, amount_kes, fee_kes, status, name_verification, failure_code, created_at,
                              confirmed_at, settled_at, completed_at)
       SELECT gen_random_uuid(), $1, 'key-' || n, 'hash', 'ref-' || n, 'bank', '0123456789', 'Jane Doe', 1000.00, 10.00,
              CASE WHEN failed THEN 'failed' ELSE 'settled' END, 'matched', CASE WHEN failed THEN 'BANK_REJECTED' END, at,
              at + interval '1 minute', CASE WHEN failed THEN NULL ELSE at + interval '2 minutes' END, at + interval '2 minutes'
         FROM made
       RETURNING transfer_id, status, failure_code, created_at
     )
     INSERT INTO payout_instructions (instruction_id, partner_id, transfer_id, amount_kes, status, failure_code, provider_reference,
                                      submitted_at, attempts, created_at, completed_at)
     SELECT transfer_id, $1, transfer_id, 1000.00, status, failure_code, 'BANK-' || transfer_id, created_at + interval '1 minute', 1,
            created_at + interval '1 minute', created_at + interval '2 minutes'
       FROM sent`,
    parameters,
  );
  await db.query(
    `WITH made AS (${made})
     INSERT INTO usdt_sends (send_id, partner_id, idempotency_key, request_hash, partner_reference, destination_wallet_id,
                             usdt_amount, status, failure_reason, to_address, chain_submitted_at, created_at, confirmed_at,
                             settled_at, completed_at)
     SELECT gen_random_uuid(), $1, 'key-' || n, 'hash', 'ref-' || n, gen_random_uuid(), 10.000000,
            CASE WHEN failed THEN 'failed' ELSE 'settled' END, CASE WHEN failed THEN 'chain_rejected' END, 'TXYZaddress',
            at + interval '1 minute', at, at + interval '1 minute', CASE WHEN failed THEN NULL ELSE at + interval '2 minutes' END,
            at + interval '2 minutes'
       FROM made`,
    parameters,
  );
  await db.query(
    `WITH made AS (${made})
     INSERT INTO mobile_money_pushes (push_id, partner_id, msisdn, amount_kes, kes_account_reference, status, created_at, expires_at,
                                      answered_at, rail_reference, credit_transaction_id)
     SELECT push_id, $1, '254712345678', 500.00, 'KES-ACCOUNT', CASE WHEN failed THEN 'declined' ELSE 'credited' END, at,
            at + interval '2 minutes', at + interval '1 minute', 'RAIL-' || n,
            CASE WHEN failed THEN NULL ELSE 'MMP-' || push_id END
       FROM (SELECT gen_random_uuid() AS push_id, * FROM made) AS pushes`,
    parameters,
  );
  await db.query(
    `WITH made AS (${made})
     INSERT INTO transfer_batches (batch_id, partner_id, idempotency_key, request_hash, status, item_count, created_at)
     SELECT gen_random_uuid(), $1, 'batch-' || n, 'hash', 'created', 1, at FROM made`,
    parameters,
  );
}

async function analyse(db: DataSource): Promise<void> {
  for (const table of GROWING_TABLES) await db.query(`VACUUM (ANALYZE) ${table}`);
}

/** The live rows one measurement works on: each due now, as the hot path meets them. */
interface Live {
  transferId: string;
  sendId: string;
  batchId: string;
  instructionId: string;
  pushId: string;
  /** A prompt whose lifetime ran out unanswered. */
  lapsedPushId: string;
  reference: string;
  /** The keyset position of the hot partner's 50th newest transfer, send and prompt: a full page follows. */
  cursors: { transfers: KeysetPosition; sends: KeysetPosition; pushes: KeysetPosition };
}

async function seedLive(db: DataSource, partnerId: string): Promise<Omit<Live, 'cursors'>> {
  const live = {
    transferId: randomUUID(),
    sendId: randomUUID(),
    batchId: randomUUID(),
    instructionId: randomUUID(),
    pushId: randomUUID(),
    lapsedPushId: randomUUID(),
    reference: `live-${randomUUID()}`,
  };
  await db.query(
    `INSERT INTO transfers (transfer_id, partner_id, idempotency_key, request_hash, partner_reference, rail, account_number,
                            account_name, amount_kes, fee_kes, status, name_verification, next_action_at)
     VALUES ($1, $2, $3, 'hash', $3, 'bank', '0123456789', 'Jane Doe', 1000.00, 10.00, 'awaiting_confirmation', 'matched',
             now() - interval '1 second')`,
    [live.transferId, partnerId, live.reference],
  );
  await db.query(
    `INSERT INTO usdt_sends (send_id, partner_id, idempotency_key, request_hash, partner_reference, destination_wallet_id,
                             usdt_amount, status, next_action_at)
     VALUES ($1, $2, $3, 'hash', $3, gen_random_uuid(), 10.000000, 'awaiting_confirmation', now() - interval '1 second')`,
    [live.sendId, partnerId, live.reference],
  );
  await db.query(
    `INSERT INTO transfer_batches (batch_id, partner_id, idempotency_key, request_hash, status, item_count, next_action_at)
     VALUES ($1, $2, $3, 'hash', 'creating', 1, now() - interval '1 second')`,
    [live.batchId, partnerId, live.reference],
  );
  await db.query(
    `INSERT INTO payout_instructions (instruction_id, partner_id, order_id, payout_destination_id, amount_kes, status, next_attempt_at)
     VALUES ($1, $2, gen_random_uuid(), gen_random_uuid(), 1000.00, 'pending', now() - interval '1 second')`,
    [live.instructionId, partnerId],
  );
  await db.query(
    `INSERT INTO mobile_money_pushes (push_id, partner_id, msisdn, amount_kes, kes_account_reference, status, expires_at,
                                      answered_at, rail_reference, next_credit_at)
     VALUES ($1, $3, '254712345678', 500.00, 'KES-ACCOUNT', 'approved', now() + interval '1 minute', now(), 'RAIL-LIVE',
             now() - interval '1 second'),
            ($2, $3, '254712345678', 500.00, 'KES-ACCOUNT', 'pending', now() - interval '1 second', NULL, NULL, NULL)`,
    [live.pushId, live.lapsedPushId, partnerId],
  );
  return live;
}

type Operation = PlannedOperation<Live>;

const page: PageBounds = { from: null, to: null, after: null, fetchLimit: 101, pageLimit: 100 };

/** The hot path's statements on the tables that grow, by operation, in the order they run. */
function operations(partnerId: string): Record<string, Operation> {
  const manager = (q: ExplainingQueryable) => q as unknown as EntityManager;
  const transfers = new TransfersRepository();
  const sends = new UsdtSendsRepository();
  const batches = new TransferBatchesRepository();
  const instructions = (q: ExplainingQueryable) => new PayoutInstructionsRepository(q as unknown as DataSource);
  const pushes = (q: ExplainingQueryable) => new MobileMoneyPushesRepository(q as unknown as DataSource);
  const transferList = { partnerId, status: null, partnerReference: null, idempotencyKey: null, page };
  return {
    'transfers: claim an idempotency key': (q) =>
      transfers.claim(
        manager(q),
        {
          transferId: randomUUID(),
          partnerId,
          idempotencyKey: `new-${randomUUID()}`,
          requestHash: 'hash',
          partnerReference: 'new',
          rail: 'bank',
          accountNumber: '0123456789',
          accountName: 'Jane Doe',
          bankCode: null,
          amountKes: '1000.00',
          feeKes: '10.00',
        },
        3_600_000,
      ),
    'transfers: find by idempotency key': (q, live) => transfers.findByKey(manager(q), partnerId, live.reference),
    'transfers: find by id': (q, live) => transfers.find(manager(q), partnerId, live.transferId),
    'transfers: newest 100': (q) => transfers.listPage(manager(q), transferList),
    'transfers: next page by cursor': (q, live) =>
      transfers.listPage(manager(q), { ...transferList, page: { ...page, after: live.cursors.transfers } }),
    'transfers: newest failed': (q) => transfers.listPage(manager(q), { ...transferList, status: 'failed' }),
    'transfers: by partner reference': (q, live) =>
      transfers.listPage(manager(q), { ...transferList, partnerReference: live.reference }),
    'transfers: by idempotency key': (q, live) =>
      transfers.listPage(manager(q), { ...transferList, idempotencyKey: live.reference }),
    'transfers: claim due': (q) => transfers.claimDue(manager(q), 50, LEASE_MS),
    'usdt sends: claim an idempotency key': (q) =>
      sends.claim(
        manager(q),
        {
          sendId: randomUUID(),
          partnerId,
          idempotencyKey: `new-${randomUUID()}`,
          requestHash: 'hash',
          partnerReference: 'new',
          destinationWalletId: randomUUID(),
          usdtAmount: '10.000000',
        },
        3_600_000,
      ),
    'usdt sends: find by idempotency key': (q, live) => sends.findByKey(manager(q), partnerId, live.reference),
    'usdt sends: find by id': (q, live) => sends.find(manager(q), partnerId, live.sendId),
    'usdt sends: newest 100': (q) => sends.listPage(manager(q), transferList),
    'usdt sends: next page by cursor': (q, live) =>
      sends.listPage(manager(q), { ...transferList, page: { ...page, after: live.cursors.sends } }),
    'usdt sends: newest failed': (q) => sends.listPage(manager(q), { ...transferList, status: 'failed' }),
    'usdt sends: by partner reference': (q, live) =>
      sends.listPage(manager(q), { ...transferList, partnerReference: live.reference }),
    'usdt sends: by idempotency key': (q, live) =>
      sends.listPage(manager(q), { ...transferList, idempotencyKey: live.reference }),
    'usdt sends: claim due': (q) => sends.claimDue(manager(q), 50, LEASE_MS),
    'batches: find by idempotency key': (q, live) => batches.findByKey(manager(q), partnerId, live.reference),
    'batches: find by id': (q, live) => batches.find(manager(q), partnerId, live.batchId),
    'batches: newest 100': (q) => batches.listPage(manager(q), { partnerId, status: null, idempotencyKey: null, page }),
    'batches: claim due': (q) => batches.claimDue(manager(q), 50, LEASE_MS),
    'payout instructions: find by id': (q, live) => instructions(q).find(live.instructionId),
    'payout instructions: claim due': (q) => instructions(q).claimDue(manager(q), 50, LEASE_MS),
    'payout instructions: stuck ones': (q) => instructions(q).listStuck(3_600_000, 100),
    'mobile money: prompt a partner': (q) =>
      pushes(q).insert({
        pushId: randomUUID(),
        partnerId,
        msisdn: '254712345678',
        amountKes: '500.00',
        kesAccountReference: 'KES-ACCOUNT',
        expiresAt: new Date(Date.now() + 120_000),
      }),
    'mobile money: find by id': (q, live) => pushes(q).find(live.pushId),
    'mobile money: newest 100': (q) => pushes(q).listPage({ partnerId, status: null, page }),
    'mobile money: next page by cursor': (q, live) =>
      pushes(q).listPage({ partnerId, status: null, page: { ...page, after: live.cursors.pushes } }),
    'mobile money: newest declined': (q) => pushes(q).listPage({ partnerId, status: 'declined', page }),
    'mobile money: claim due credits': (q) => pushes(q).claimDueCredits(manager(q), 50, LEASE_MS),
    'mobile money: expire unanswered prompts': (q) => pushes(q).expireUnanswered(manager(q), 100),
  };
}

/** The live rows, and the hot partner's cursors a full page back, for one measurement. */
async function liveNow(db: DataSource, hotPartner: string): Promise<Live> {
  const live = await seedLive(db, hotPartner);
  const tx = db.manager;
  const at50 = <T extends { createdAtExact: string }>(rows: T[], id: (row: T) => string): KeysetPosition => ({
    createdAt: rows[49].createdAtExact,
    id: id(rows[49]),
  });
  const wide = { ...page, fetchLimit: 50 };
  const filter = { partnerId: hotPartner, status: null, partnerReference: null, idempotencyKey: null, page: wide };
  return {
    ...live,
    cursors: {
      transfers: at50(await new TransfersRepository().listPage(tx, filter), (row) => row.transferId),
      sends: at50(await new UsdtSendsRepository().listPage(tx, filter), (row) => row.sendId),
      pushes: at50(
        await new MobileMoneyPushesRepository(db).listPage({ partnerId: hotPartner, status: null, page: wide }),
        (row) => row.pushId,
      ),
    },
  };
}

describeFlatQueries({
  title: 'payouts hot queries against a growing history',
  scratchName: 'payouts_query_plans',
  serviceDataSource: payoutsDataSource,
  growingTables: GROWING_TABLES,
  timeoutMs: SEED_TIMEOUT_MS,
  async seedBefore(db) {
    const partners = {
      hotPartner: randomUUID(),
      others: Array.from({ length: OTHER_PARTNERS }, () => randomUUID()),
      now: new Date(),
    };
    await seedHistories(db, partners, HISTORY, 'before', seedHistory);
    return partners;
  },
  seedAdded: (db, partners) => seedHistories(db, partners, HISTORY, 'added', seedHistory),
  analyse,
  liveContext: (db, { hotPartner }) => liveNow(db, hotPartner),
  operations: ({ hotPartner }) => operations(hotPartner),
  minimumRows: Object.fromEntries(
    ['transfers', 'payout_instructions', 'usdt_sends', 'mobile_money_pushes'].map((table) => [
      table,
      HISTORY.hotAdded + OTHER_PARTNERS * HISTORY.otherAdded,
    ]),
  ),
});
