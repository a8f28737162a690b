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
}

const COLUMNS = `transaction_id, bank_transaction_id, partner_id, account_id, amount_kes::text AS amount_kes, rail, rail_reference,
  to_char(received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS received_at, entry_id`;

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
  };
}

export class KesCreditsRepository {
  /** Serialises work on one bank transaction id until the caller's transaction ends. */
  async lockBankTransaction(manager: EntityManager, bankTransactionId: string): Promise<void> {
    await manager.query("SELECT pg_advisory_xact_lock(hashtextextended('kes_credit:' || $1, 0))", [bankTransactionId]);
  }

  async find(manager: EntityManager, bankTransactionId: string): Promise<KesCreditRecord | null> {
    const [row] = await manager.query(`SELECT ${COLUMNS} FROM kes_credits WHERE bank_transaction_id = $1`, [bankTransactionId]);
    return row ? toRecord(row) : null;
  }

  async insert(manager: EntityManager, record: KesCreditRecord): Promise<KesCreditRecord> {
    const [row] = await manager.query(
      `INSERT INTO kes_credits (transaction_id, bank_transaction_id, partner_id, account_id, amount_kes, rail, rail_reference, received_at, entry_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${COLUMNS}`,
      [record.transactionId, record.bankTransactionId, record.partnerId, record.accountId, record.amountKes, record.rail,
        record.railReference, record.receivedAt, record.entryId],
    );
    return toRecord(row);
  }
}
