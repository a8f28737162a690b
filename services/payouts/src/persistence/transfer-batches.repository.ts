/** transfer_batches and their items. */
import type { DueRows, EntityManager } from '@platform/persistence';
import { queryRows } from '@platform/persistence';

export interface TransferBatchRecord {
  batchId: string;
  partnerId: string;
  idempotencyKey: string;
  requestHash: string;
  status: 'creating' | 'created';
  confirmationId: string | null;
  itemCount: number;
  createdAt: Date;
}

export interface BatchItemRecord {
  itemIndex: number;
  idempotencyKey: string;
  transferId: string | null;
  failureCode: string | null;
}

const COLUMNS = `batch_id AS "batchId", partner_id AS "partnerId", idempotency_key AS "idempotencyKey", request_hash AS "requestHash",
  status, confirmation_id AS "confirmationId", item_count AS "itemCount", created_at AS "createdAt"`;

export class TransferBatchesRepository {
  /** Claims the batch's idempotency key (see TransfersRepository.claim); null when taken. */
  async claim(manager: EntityManager, batch: Pick<TransferBatchRecord, 'batchId' | 'partnerId' | 'idempotencyKey' | 'requestHash' | 'itemCount'>, leaseMs: number): Promise<TransferBatchRecord | null> {
    const [row] = await queryRows<TransferBatchRecord>(manager,
      `INSERT INTO transfer_batches (batch_id, partner_id, idempotency_key, request_hash, status, item_count, next_action_at)
       VALUES ($1, $2, $3, $4, 'creating', $5, now() + make_interval(secs => $6::double precision / 1000))
       ON CONFLICT (partner_id, idempotency_key) DO NOTHING RETURNING ${COLUMNS}`,
      [batch.batchId, batch.partnerId, batch.idempotencyKey, batch.requestHash, batch.itemCount, leaseMs]);
    return row ?? null;
  }

  async findByKey(manager: EntityManager, partnerId: string, idempotencyKey: string): Promise<TransferBatchRecord | null> {
    const [row] = await queryRows<TransferBatchRecord>(manager, `SELECT ${COLUMNS} FROM transfer_batches WHERE partner_id = $1 AND idempotency_key = $2`, [partnerId, idempotencyKey]);
    return row ?? null;
  }

  async find(manager: EntityManager, partnerId: string, batchId: string): Promise<TransferBatchRecord | null> {
    const [row] = await queryRows<TransferBatchRecord>(manager, `SELECT ${COLUMNS} FROM transfer_batches WHERE batch_id = $1 AND partner_id = $2`, [batchId, partnerId]);
    return row ?? null;
  }

  async items(manager: EntityManager, batchId: string): Promise<BatchItemRecord[]> {
    return queryRows<BatchItemRecord>(manager,
      `SELECT item_index AS "itemIndex", idempotency_key AS "idempotencyKey", transfer_id AS "transferId", failure_code AS "failureCode"
         FROM transfer_batch_items WHERE batch_id = $1 ORDER BY item_index`, [batchId]);
  }

  /** creating → created, with its items, in the caller's transaction. False when the create was abandoned meanwhile. */
  async markCreated(manager: EntityManager, batchId: string, confirmationId: string | null, items: BatchItemRecord[]): Promise<boolean> {
    const rows = await queryRows(manager,
      `UPDATE transfer_batches SET status = 'created', confirmation_id = $2, next_action_at = NULL
        WHERE batch_id = $1 AND status = 'creating' RETURNING batch_id`, [batchId, confirmationId]);
    if (rows.length !== 1) return false;
    for (const item of items) {
      await manager.query('INSERT INTO transfer_batch_items (batch_id, item_index, idempotency_key, transfer_id, failure_code) VALUES ($1, $2, $3, $4, $5)',
        [batchId, item.itemIndex, item.idempotencyKey, item.transferId, item.failureCode]);
    }
    return true;
  }

  async deleteCreating(manager: EntityManager, batchId: string): Promise<void> {
    await manager.query("DELETE FROM transfer_batches WHERE batch_id = $1 AND status = 'creating' AND NOT EXISTS (SELECT 1 FROM transfers WHERE batch_id = $1)", [batchId]);
  }

  /** Where claimDue finds due rows: measured for this worker's metrics. */
  readonly dueRows: DueRows = { table: 'transfer_batches', dueColumn: 'next_action_at' };

  /** Abandoned creates past their lease (their items are undone by the transfer scheduler first). */
  async claimDue(manager: EntityManager, limit: number, leaseMs: number): Promise<TransferBatchRecord[]> {
    return queryRows<TransferBatchRecord>(manager,
      `UPDATE transfer_batches SET next_action_at = now() + make_interval(secs => $2::double precision / 1000)
        WHERE batch_id IN (SELECT batch_id FROM transfer_batches WHERE next_action_at <= now()
                            ORDER BY next_action_at LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING ${COLUMNS}`, [limit, leaseMs]);
  }
}
