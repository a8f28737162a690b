/** Payout destination rows. account_number is returned to internal callers only; it is never logged. */
import { DataSource, EntityManager, queryRows } from '@platform/persistence';
import type { PayoutDestinationStatus, PayoutRail } from '../domain/payout-destination';

export interface PayoutDestinationRecord {
  id: string;
  partnerId: string;
  rail: PayoutRail;
  currency: 'KES';
  accountName: string;
  accountNumber: string;
  bankCode: string | null;
  status: PayoutDestinationStatus;
  createdAt: string;
}

/** Listed per partner at most; far above any real partner's count. */
export const DESTINATIONS_LISTED_MAX = 500;

const COLUMNS = `id, partner_id, rail, currency, account_name, account_number, bank_code, status,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at`;

function toRecord(row: Record<string, string | null>): PayoutDestinationRecord {
  return {
    id: row.id!,
    partnerId: row.partner_id!,
    rail: row.rail as PayoutRail,
    currency: 'KES',
    accountName: row.account_name!,
    accountNumber: row.account_number!,
    bankCode: row.bank_code,
    status: row.status as PayoutDestinationStatus,
    createdAt: row.created_at!,
  };
}

export class PayoutDestinationsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(
    record: Omit<PayoutDestinationRecord, 'status' | 'createdAt' | 'currency'>,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<PayoutDestinationRecord> {
    const [row] = await manager.query(
      `INSERT INTO payout_destinations (id, partner_id, rail, account_name, account_number, bank_code) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
      [record.id, record.partnerId, record.rail, record.accountName, record.accountNumber, record.bankCode],
    );
    return toRecord(row);
  }

  async setStatus(
    id: string,
    status: PayoutDestinationStatus,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<PayoutDestinationRecord | null> {
    const [row] = await queryRows<Record<string, string | null>>(
      manager,
      `UPDATE payout_destinations SET status = $2 WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, status],
    );
    return row ? toRecord(row) : null;
  }

  async findForPartner(id: string, partnerId: string): Promise<PayoutDestinationRecord | null> {
    const [row] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM payout_destinations WHERE id = $1 AND partner_id = $2`,
      [id, partnerId],
    );
    return row ? toRecord(row) : null;
  }

  async listActive(partnerId: string): Promise<PayoutDestinationRecord[]> {
    const rows = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM payout_destinations WHERE partner_id = $1 AND status = 'active' ORDER BY created_at, id LIMIT $2`,
      [partnerId, DESTINATIONS_LISTED_MAX],
    );
    return rows.map(toRecord);
  }
}
