import type { EntityManager } from '@platform/persistence';

export interface KesCreditRecord {
  transactionId: string;
  bankTransactionId: string;
  partnerId: string | null;
  accountId: string;
  amountKes: string;
  rail: string;
  railReference: string | null;
  receivedAt: string;
  entryId: string;
  /** The registered pay-in order reference the payer entered, if any. */
  paymentReference: string | null;
}

const COLUMNS = `transaction_id, bank_transaction_id, partner_id, account_id, amount_kes::text AS amount_kes, rail, rail_reference,
  to_char(received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS received_at, entry_id, payment_reference`;

/** Most credits read back for one payment reference (a payer paying one order more than this often is an operator matter). */
export const CREDITS_PER_REFERENCE_MAX = 20;

function toRecord(row: Record<string, string | null>): KesCreditRecord {
  return {
    transactionId: row.transaction_id!,
    bankTransactionId: row.bank_transaction_id!,
    partnerId: row.partner_id,
    accountId: row.account_id!,
    amountKes: row.amount_kes!,
    rail: row.rail!,
    railReference: row.rail_reference,
    receivedAt: row.received_at!,
    entryId: row.entry_id!,
    paymentReference: row.payment_reference ?? null,
  };
}

export class KesCreditsRepository {
  /** Serialises work on one bank transaction id until the caller's transaction ends. */
  async lockBankTransaction(manager: EntityManager, bankTransactionId: string): Promise<void> {
    await manager.query("SELECT pg_advisory_xact_lock(hashtextextended('kes_credit:' || $1, 0))", [bankTransactionId]);
  }

  async find(manager: EntityManager, bankTransactionId: string): Promise<KesCreditRecord | null> {
    const [row] = await manager.query(`SELECT ${COLUMNS} FROM kes_credits WHERE bank_transaction_id = $1`, [
      bankTransactionId,
    ]);
    return row ? toRecord(row) : null;
  }

  async insert(manager: EntityManager, record: KesCreditRecord): Promise<KesCreditRecord> {
    const [row] = await manager.query(
      `INSERT INTO kes_credits (transaction_id, bank_transaction_id, partner_id, account_id, amount_kes, rail, rail_reference, received_at, entry_id, payment_reference)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING ${COLUMNS}`,
      [
        record.transactionId,
        record.bankTransactionId,
        record.partnerId,
        record.accountId,
        record.amountKes,
        record.rail,
        record.railReference,
        record.receivedAt,
        record.entryId,
        record.paymentReference,
      ],
    );
    return toRecord(row);
  }

  /** The partner's credits that carried this payment reference, earliest received first, at most CREDITS_PER_REFERENCE_MAX. */
  async listByPaymentReference(
    manager: EntityManager,
    partnerId: string,
    reference: string,
  ): Promise<KesCreditRecord[]> {
    const rows = await manager.query(
      `SELECT ${COLUMNS} FROM kes_credits WHERE payment_reference = $1 AND partner_id = $2 ORDER BY received_at, bank_transaction_id LIMIT $3`,
      [reference, partnerId, CREDITS_PER_REFERENCE_MAX],
    );
    return rows.map(toRecord);
  }
}
