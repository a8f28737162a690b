/** transfers: amounts read back as strings, never JS numbers. Transitions compare-and-set on the status. */
import type { EntityManager } from '@platform/persistence';
import { leaseTokenSelect, queryRows } from '@platform/persistence';
import type { ConfirmableStatus } from '../domain/confirmable-status';
import { ConfirmableListFilter, ConfirmableRows } from './confirmable-rows';

export type TransferStatus = ConfirmableStatus;

export interface TransferRecord {
  transferId: string;
  partnerId: string;
  idempotencyKey: string;
  requestHash: string;
  partnerReference: string;
  rail: string;
  accountNumber: string;
  accountName: string;
  bankCode: string | null;
  amountKes: string;
  feeKes: string;
  status: TransferStatus;
  nameVerification: string;
  verifiedAccountName: string | null;
  failureCode: string | null;
  confirmationId: string | null;
  kesAccountId: string | null;
  /** Set for an item of a transfer batch (its idempotency key is then unique within the batch only). */
  batchId: string | null;
  createdAt: Date;
  confirmedAt: Date | null;
  settledAt: Date | null;
  /** Only on a claimed row: its lease token (the timer value the claim wrote). */
  leaseToken?: string;
}

const COLUMNS = `transfer_id AS "transferId", partner_id AS "partnerId", idempotency_key AS "idempotencyKey", request_hash AS "requestHash",
  partner_reference AS "partnerReference", rail, account_number AS "accountNumber", account_name AS "accountName", bank_code AS "bankCode",
  amount_kes::text AS "amountKes", fee_kes::text AS "feeKes", status, name_verification AS "nameVerification",
  verified_account_name AS "verifiedAccountName", failure_code AS "failureCode", confirmation_id AS "confirmationId",
  kes_account_id AS "kesAccountId", batch_id AS "batchId", created_at AS "createdAt", confirmed_at AS "confirmedAt", settled_at AS "settledAt"`;

export type TransferListFilter = ConfirmableListFilter;

/** A transfer with its exact position in the newest-first listing. */
export type ListedTransfer = TransferRecord & { createdAtExact: string };

export type NewTransfer = Pick<
  TransferRecord,
  | 'transferId'
  | 'partnerId'
  | 'idempotencyKey'
  | 'requestHash'
  | 'partnerReference'
  | 'rail'
  | 'accountNumber'
  | 'accountName'
  | 'bankCode'
  | 'amountKes'
  | 'feeKes'
>;

export class TransfersRepository extends ConfirmableRows<TransferRecord> {
  constructor() {
    super({ table: 'transfers', idColumn: 'transfer_id', columns: COLUMNS, failureColumn: 'failure_code' });
  }

  /**
   * Claims the idempotency key with a 'creating' row, due for clean-up after
   * `leaseMs` should this create never finish. Null when the key is taken
   * (the unique index decides between concurrent twins).
   */
  async claim(
    manager: EntityManager,
    transfer: NewTransfer,
    leaseMs: number,
    batchId: string | null = null,
  ): Promise<TransferRecord | null> {
    const conflict = batchId
      ? '(batch_id, idempotency_key) WHERE batch_id IS NOT NULL'
      : '(partner_id, idempotency_key) WHERE batch_id IS NULL';
    const [row] = await queryRows<TransferRecord>(
      manager,
      `INSERT INTO transfers (transfer_id, partner_id, idempotency_key, request_hash, partner_reference, rail, account_number, account_name,
         bank_code, amount_kes, fee_kes, status, name_verification, next_action_at, batch_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'creating', 'pending', now() + make_interval(secs => $12::double precision / 1000), $13)
       ON CONFLICT ${conflict} DO NOTHING RETURNING ${COLUMNS}, ${leaseTokenSelect('next_action_at')}`,
      [
        transfer.transferId,
        transfer.partnerId,
        transfer.idempotencyKey,
        transfer.requestHash,
        transfer.partnerReference,
        transfer.rail,
        transfer.accountNumber,
        transfer.accountName,
        transfer.bankCode,
        transfer.amountKes,
        transfer.feeKes,
        leaseMs,
        batchId,
      ],
    );
    return row ?? null;
  }

  async listByConfirmation(manager: EntityManager, confirmationId: string): Promise<TransferRecord[]> {
    return queryRows<TransferRecord>(manager, `SELECT ${COLUMNS} FROM transfers WHERE confirmation_id = $1`, [
      confirmationId,
    ]);
  }

  async listByBatch(manager: EntityManager, batchId: string): Promise<TransferRecord[]> {
    return queryRows<TransferRecord>(manager, `SELECT ${COLUMNS} FROM transfers WHERE batch_id = $1`, [batchId]);
  }

  async findByKey(manager: EntityManager, partnerId: string, idempotencyKey: string): Promise<TransferRecord | null> {
    const [row] = await queryRows<TransferRecord>(
      manager,
      `SELECT ${COLUMNS} FROM transfers WHERE partner_id = $1 AND idempotency_key = $2 AND batch_id IS NULL`,
      [partnerId, idempotencyKey],
    );
    return row ?? null;
  }

  async lockByConfirmation(manager: EntityManager, confirmationId: string): Promise<TransferRecord[]> {
    return queryRows<TransferRecord>(
      manager,
      `SELECT ${COLUMNS} FROM transfers WHERE confirmation_id = $1 ORDER BY transfer_id FOR UPDATE`,
      [confirmationId],
    );
  }

  async recordVerification(
    manager: EntityManager,
    transferId: string,
    nameVerification: string,
    verifiedAccountName: string | null,
    kesAccountId: string,
  ): Promise<void> {
    await manager.query(
      "UPDATE transfers SET name_verification = $2, verified_account_name = $3, kes_account_id = $4 WHERE transfer_id = $1 AND status = 'creating'",
      [transferId, nameVerification, verifiedAccountName, kesAccountId],
    );
  }

  /** creating → awaiting_confirmation, due when the code expires. False when the create was abandoned meanwhile. */
  async markAwaitingConfirmation(
    manager: EntityManager,
    transferId: string,
    confirmationId: string,
    expiresAt: Date,
  ): Promise<boolean> {
    const rows = await queryRows(
      manager,
      `UPDATE transfers SET status = 'awaiting_confirmation', confirmation_id = $2, next_action_at = $3
        WHERE transfer_id = $1 AND status = 'creating' RETURNING transfer_id`,
      [transferId, confirmationId, expiresAt],
    );
    return rows.length === 1;
  }

  async markConfirmed(manager: EntityManager, transferId: string, confirmedAt: Date): Promise<boolean> {
    const rows = await queryRows(
      manager,
      `UPDATE transfers SET status = 'confirmed', confirmed_at = $2, next_action_at = NULL
        WHERE transfer_id = $1 AND status = 'awaiting_confirmation' RETURNING transfer_id`,
      [transferId, confirmedAt],
    );
    return rows.length === 1;
  }

  async markOutcome(
    manager: EntityManager,
    transferId: string,
    outcome: { status: 'settled'; settledAt: Date } | { status: 'failed'; failureCode: string },
  ): Promise<boolean> {
    return this.recordOutcome(manager, transferId, {
      status: outcome.status,
      failure: outcome.status === 'failed' ? outcome.failureCode : null,
      settledAt: outcome.status === 'settled' ? outcome.settledAt : null,
    });
  }
}
