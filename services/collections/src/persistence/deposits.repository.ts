/** SQL for deposits the USD rails report; unique per rails deposit id. */
import type { EntityManager } from '@platform/persistence';
import { queryRows } from '@platform/persistence';
import type { RefundReason } from '../domain/collection';

export interface DepositRecord {
  depositId: string;
  collectionId: string;
  amount: string;
  senderName: string | null;
  disposition: 'accepted' | 'refunded';
  refundReason: RefundReason | null;
  receivedAt: Date;
}

interface DepositRow {
  deposit_id: string;
  collection_id: string;
  amount: string;
  sender_name: string | null;
  disposition: 'accepted' | 'refunded';
  refund_reason: RefundReason | null;
  received_at: Date;
}

const toRecord = (row: DepositRow): DepositRecord => ({
  depositId: row.deposit_id,
  collectionId: row.collection_id,
  amount: row.amount,
  senderName: row.sender_name,
  disposition: row.disposition,
  refundReason: row.refund_reason,
  receivedAt: row.received_at,
});

export class DepositsRepository {
  async find(manager: EntityManager, depositId: string): Promise<DepositRecord | null> {
    const rows = await queryRows<DepositRow>(manager, 'SELECT * FROM deposits WHERE deposit_id = $1', [depositId]);
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async insert(manager: EntityManager, deposit: DepositRecord): Promise<void> {
    await manager.query(
      `INSERT INTO deposits (deposit_id, collection_id, amount, sender_name, disposition, refund_reason, received_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        deposit.depositId,
        deposit.collectionId,
        deposit.amount,
        deposit.senderName,
        deposit.disposition,
        deposit.refundReason,
        deposit.receivedAt,
      ],
    );
  }
}
