/** transfer_batches and their items. */
import type { DueRows, EntityManager, PageBounds } from '@platform/persistence';
import { keysetConditions, keysetTimeSql, leaseTokenSelect, queryRows } from '@platform/persistence';
import { BATCH_STATUSES, type BatchStatus } from '@platform/openapi/dist/contract/statuses';

export interface TransferBatchRecord {
  batchId: string;
  partnerId: string;
  idempotencyKey: string;
  requestHash: string;
  status: 'creating' | 'created';
  confirmationId: string | null;
  itemCount: number;
  createdAt: Date;
  /** Only on a claimed row: its lease token (the timer value the claim wrote). */
  leaseToken?: string;
}

export interface BatchItemRecord {
  itemIndex: number;
  idempotencyKey: string;
  transferId: string | null;
  failureCode: string | null;
}

const COLUMNS = `batch_id AS "batchId", partner_id AS "partnerId", idempotency_key AS "idempotencyKey", request_hash AS "requestHash",
  status, confirmation_id AS "confirmationId", item_count AS "itemCount", created_at AS "createdAt"`;

/** COLUMNS of the batch aliased b (the listing joins its confirmation). */
const BATCH_COLUMNS = `b.batch_id AS "batchId", b.partner_id AS "partnerId", b.idempotency_key AS "idempotencyKey", b.request_hash AS "requestHash",
  b.status, b.confirmation_id AS "confirmationId", b.item_count AS "itemCount", b.created_at AS "createdAt"`;

/** A batch's status as partners see it, derived from its confirmation and its transfers (never stored). */
export { BATCH_STATUSES, type BatchStatus };

export interface BatchListFilter {
  partnerId: string;
  status: BatchStatus | null;
  idempotencyKey: string | null;
  page: PageBounds;
}

/** A batch with its exact position in the newest-first listing. */
export type ListedBatch = TransferBatchRecord & { createdAtExact: string };

/**
 * batchStatus (grpc/transfer-batches.handlers.ts) in SQL, so a status filter
 * runs in the page's query: no confirmation → failed; a used code → completed
 * once every transfer is final, confirmed before; an expired code, or every
 * transfer expired → expired; else awaiting_confirmation. Each test is an
 * index probe on the batch's own transfers (at most 20).
 */
const DERIVED_STATUS_SQL = `CASE
    WHEN b.confirmation_id IS NULL THEN 'failed'
    WHEN c.status = 'used' THEN CASE WHEN EXISTS (SELECT 1 FROM transfers t WHERE t.batch_id = b.batch_id AND t.status NOT IN ('settled', 'failed', 'expired'))
      THEN 'confirmed' ELSE 'completed' END
    WHEN c.status = 'expired' OR NOT EXISTS (SELECT 1 FROM transfers t WHERE t.batch_id = b.batch_id AND t.status <> 'expired') THEN 'expired'
    ELSE 'awaiting_confirmation' END`;

export class TransferBatchesRepository {
  /** Claims the batch's idempotency key (see TransfersRepository.claim); null when taken. */
  async claim(
    manager: EntityManager,
    batch: Pick<TransferBatchRecord, 'batchId' | 'partnerId' | 'idempotencyKey' | 'requestHash' | 'itemCount'>,
    leaseMs: number,
  ): Promise<TransferBatchRecord | null> {
    const [row] = await queryRows<TransferBatchRecord>(
      manager,
      `INSERT INTO transfer_batches (batch_id, partner_id, idempotency_key, request_hash, status, item_count, next_action_at)
       VALUES ($1, $2, $3, $4, 'creating', $5, now() + make_interval(secs => $6::double precision / 1000))
       ON CONFLICT (partner_id, idempotency_key) DO NOTHING RETURNING ${COLUMNS}, ${leaseTokenSelect('next_action_at')}`,
      [batch.batchId, batch.partnerId, batch.idempotencyKey, batch.requestHash, batch.itemCount, leaseMs],
    );
    return row ?? null;
  }

  async findByKey(
    manager: EntityManager,
    partnerId: string,
    idempotencyKey: string,
  ): Promise<TransferBatchRecord | null> {
    const [row] = await queryRows<TransferBatchRecord>(
      manager,
      `SELECT ${COLUMNS} FROM transfer_batches WHERE partner_id = $1 AND idempotency_key = $2`,
      [partnerId, idempotencyKey],
    );
    return row ?? null;
  }

  async find(manager: EntityManager, partnerId: string, batchId: string): Promise<TransferBatchRecord | null> {
    const [row] = await queryRows<TransferBatchRecord>(
      manager,
      `SELECT ${COLUMNS} FROM transfer_batches WHERE batch_id = $1 AND partner_id = $2`,
      [batchId, partnerId],
    );
    return row ?? null;
  }

  /** One page of the partner's batches (past their create), newest first, along transfer_batches_partner_created_idx. */
  async listPage(manager: EntityManager, filter: BatchListFilter): Promise<ListedBatch[]> {
    const parameters: unknown[] = [filter.partnerId];
    const conditions = ['b.partner_id = $1', "b.status = 'created'"];
    if (filter.idempotencyKey !== null) {
      parameters.push(filter.idempotencyKey);
      conditions.push(`b.idempotency_key = $${parameters.length}`);
    }
    if (filter.status !== null) {
      parameters.push(filter.status);
      conditions.push(`(${DERIVED_STATUS_SQL}) = $${parameters.length}`);
    }
    conditions.push(...keysetConditions(filter.page, parameters, { createdAt: 'b.created_at', id: 'b.batch_id' }));
    parameters.push(filter.page.fetchLimit);
    return queryRows<ListedBatch>(
      manager,
      `SELECT ${BATCH_COLUMNS}, ${keysetTimeSql('b.created_at')} AS "createdAtExact"
         FROM transfer_batches b LEFT JOIN confirmations c ON c.confirmation_id = b.confirmation_id
        WHERE ${conditions.join(' AND ')}
        ORDER BY b.created_at DESC, b.batch_id DESC LIMIT $${parameters.length}`,
      parameters,
    );
  }

  async items(manager: EntityManager, batchId: string): Promise<BatchItemRecord[]> {
    return queryRows<BatchItemRecord>(
      manager,
      `SELECT item_index AS "itemIndex", idempotency_key AS "idempotencyKey", transfer_id AS "transferId", failure_code AS "failureCode"
         FROM transfer_batch_items WHERE batch_id = $1 ORDER BY item_index`,
      [batchId],
    );
  }

  /** creating → created, with its items, in the caller's transaction. False when the create was abandoned meanwhile. */
  async markCreated(
    manager: EntityManager,
    batchId: string,
    confirmationId: string | null,
    items: BatchItemRecord[],
  ): Promise<boolean> {
    const rows = await queryRows(
      manager,
      `UPDATE transfer_batches SET status = 'created', confirmation_id = $2, next_action_at = NULL
        WHERE batch_id = $1 AND status = 'creating' RETURNING batch_id`,
      [batchId, confirmationId],
    );
    if (rows.length !== 1) return false;
    for (const item of items) {
      await manager.query(
        'INSERT INTO transfer_batch_items (batch_id, item_index, idempotency_key, transfer_id, failure_code) VALUES ($1, $2, $3, $4, $5)',
        [batchId, item.itemIndex, item.idempotencyKey, item.transferId, item.failureCode],
      );
    }
    return true;
  }

  async deleteCreating(manager: EntityManager, batchId: string): Promise<void> {
    await manager.query(
      "DELETE FROM transfer_batches WHERE batch_id = $1 AND status = 'creating' AND NOT EXISTS (SELECT 1 FROM transfers WHERE batch_id = $1)",
      [batchId],
    );
  }

  /** A batch create that failed gives its claim and its unfinished items up at once (see ConfirmableRows.releaseCreating). */
  async releaseCreating(manager: EntityManager, batchId: string): Promise<void> {
    await manager.query(
      "UPDATE transfers SET next_action_at = now() WHERE batch_id = $1 AND status = 'creating' AND next_action_at > now()",
      [batchId],
    );
    await manager.query(
      "UPDATE transfer_batches SET next_action_at = now() WHERE batch_id = $1 AND status = 'creating' AND next_action_at > now()",
      [batchId],
    );
  }

  /** Leases an abandoned batch create to this caller (see ConfirmableRows.claimAbandoned). */
  async claimAbandoned(manager: EntityManager, batchId: string, leaseMs: number): Promise<boolean> {
    const rows = await queryRows(
      manager,
      `UPDATE transfer_batches SET next_action_at = now() + make_interval(secs => $2::double precision / 1000)
        WHERE batch_id = $1 AND status = 'creating' AND next_action_at <= now() RETURNING batch_id`,
      [batchId, leaseMs],
    );
    return rows.length === 1;
  }

  /** Where claimDue finds due rows: measured for this worker's metrics. */
  readonly dueRows: DueRows = { table: 'transfer_batches', dueColumn: 'next_action_at', idColumn: 'batch_id' };

  /** Abandoned creates past their lease (their items are undone by the transfer scheduler first). */
  async claimDue(manager: EntityManager, limit: number, leaseMs: number): Promise<TransferBatchRecord[]> {
    return queryRows<TransferBatchRecord>(
      manager,
      `UPDATE transfer_batches SET next_action_at = now() + make_interval(secs => $2::double precision / 1000)
        WHERE batch_id IN (SELECT batch_id FROM transfer_batches WHERE next_action_at <= now()
                            ORDER BY next_action_at LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING ${COLUMNS}, ${leaseTokenSelect('next_action_at')}`,
      [limit, leaseMs],
    );
  }
}
