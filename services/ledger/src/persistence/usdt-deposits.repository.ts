/** USDT deposit rows. Lock order: the deposit (advisory lock on its hash, or its row) first, then accounts. */
import { DueRows, EntityManager, queryRows } from '@platform/persistence';
import { Big, formatAmount } from '@platform/money';
import type { UsdtDepositStatus as PartnerDepositStatus } from '@platform/openapi/dist/contract/statuses';

/** The statuses partners see, and `unattributed`: a deposit to no partner's address, which no partner sees. */
export type UsdtDepositStatus = PartnerDepositStatus | 'unattributed';

export interface UsdtDepositRecord {
  depositId: string;
  txHash: string;
  toAddress: string;
  partnerId: string | null;
  usdtAmount: string;
  status: UsdtDepositStatus;
  holdUntil: string | null;
  orderId: string | null;
  receivedAt: string;
  creditedAt: string | null;
}

const ISO = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const COLUMNS = `id, tx_hash, to_address, partner_id, amount_usdt::text AS amount_usdt, status, ${ISO('hold_until')} AS hold_until, order_id,
  ${ISO('received_at')} AS received_at, ${ISO('credited_at')} AS credited_at`;

function toRecord(row: Record<string, string | null>): UsdtDepositRecord {
  return {
    depositId: row.id!,
    txHash: row.tx_hash!,
    toAddress: row.to_address!,
    partnerId: row.partner_id,
    usdtAmount: formatAmount(new Big(row.amount_usdt!), 'USDT'),
    status: row.status as UsdtDepositStatus,
    holdUntil: row.hold_until,
    orderId: row.order_id,
    receivedAt: row.received_at!,
    creditedAt: row.credited_at,
  };
}

export interface NewUsdtDeposit {
  depositId: string;
  txHash: string;
  toAddress: string;
  partnerId: string | null;
  amount: Big;
  status: UsdtDepositStatus;
  holdUntil: string | null;
  orderId: string | null;
  receivedAt: string;
  bookingEntryId: string;
}

export class UsdtDepositsRepository {
  /** Serialises work on one transaction hash (the row may not exist yet to lock). */
  async lockTxHash(manager: EntityManager, txHash: string): Promise<void> {
    await manager.query("SELECT pg_advisory_xact_lock(hashtextextended('usdt_deposit:' || $1, 0))", [txHash]);
  }

  async find(manager: EntityManager, txHash: string, forUpdate = false): Promise<UsdtDepositRecord | null> {
    const [row] = await manager.query(
      `SELECT ${COLUMNS} FROM usdt_deposits WHERE chain = 'tron' AND tx_hash = $1${forUpdate ? ' FOR UPDATE' : ''}`,
      [txHash],
    );
    return row ? toRecord(row) : null;
  }

  async insert(manager: EntityManager, deposit: NewUsdtDeposit): Promise<UsdtDepositRecord> {
    const [row] = await manager.query(
      `INSERT INTO usdt_deposits (id, chain, tx_hash, to_address, partner_id, amount_usdt, status, hold_until, order_id, received_at, booking_entry_id, credited_at)
       VALUES ($1, 'tron', $2, $3, $4, $5, $6, $7, $8, $9, $10, CASE WHEN $6 = 'credited' THEN now() END) RETURNING ${COLUMNS}`,
      [
        deposit.depositId,
        deposit.txHash,
        deposit.toAddress,
        deposit.partnerId,
        deposit.amount.toString(),
        deposit.status,
        deposit.holdUntil,
        deposit.orderId,
        deposit.receivedAt,
        deposit.bookingEntryId,
      ],
    );
    return toRecord(row);
  }

  /** Where claimDue finds held deposits whose window passed: measured for the sweeper's metrics. */
  readonly heldRows: DueRows = {
    table: 'usdt_deposits',
    dueColumn: 'hold_until',
    where: "status = 'held_for_attribution'",
  };

  /** Held deposits whose window has passed; rows another replica is releasing are skipped. */
  async claimDue(manager: EntityManager, limit: number): Promise<UsdtDepositRecord[]> {
    const rows = await manager.query(
      `SELECT ${COLUMNS} FROM usdt_deposits WHERE status = 'held_for_attribution' AND hold_until <= now()
        ORDER BY hold_until LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit],
    );
    return rows.map(toRecord);
  }

  async markCredited(manager: EntityManager, depositId: string, releaseEntryId: string): Promise<UsdtDepositRecord> {
    const [row] = await queryRows<Record<string, string | null>>(
      manager,
      `UPDATE usdt_deposits SET status = 'credited', hold_until = NULL, release_entry_id = $2, credited_at = now()
        WHERE id = $1 AND status = 'held_for_attribution' RETURNING ${COLUMNS}`,
      [depositId, releaseEntryId],
    );
    if (!row) throw new Error(`deposit ${depositId} was not held when released`);
    return toRecord(row);
  }

  async markClaimed(manager: EntityManager, depositId: string, orderId: string): Promise<UsdtDepositRecord> {
    const [row] = await queryRows<Record<string, string | null>>(
      manager,
      `UPDATE usdt_deposits SET status = 'claimed', hold_until = NULL, order_id = $2
        WHERE id = $1 AND status = 'held_for_attribution' RETURNING ${COLUMNS}`,
      [depositId, orderId],
    );
    if (!row) throw new Error(`deposit ${depositId} was not held when claimed`);
    return toRecord(row);
  }
}
