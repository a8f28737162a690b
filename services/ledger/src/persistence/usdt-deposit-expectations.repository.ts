/**
 * Deposit-mode sell orders' expectations of a USDT deposit (registered by
 * trading). "Open" is judged by the database's clock, the one every replica
 * shares: an expectation is open while send_before is ahead of now().
 * Lock order: the deposit's hash (advisory lock) first, then the order's
 * expectation, then the deposit row.
 */
import type { EntityManager } from '@platform/persistence';
import { queryRows } from '@platform/persistence';
import type { ExpectationsOfDeposit } from '../domain/deposit-plan';

export interface UsdtDepositExpectationRecord {
  orderId: string;
  partnerId: string;
  sendBefore: string;
  txHash: string | null;
  open: boolean;
}

const ISO = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const COLUMNS = `order_id AS "orderId", partner_id AS "partnerId", ${ISO('send_before')} AS "sendBefore",
  tx_hash AS "txHash", send_before > now() AS "open"`;

export class UsdtDepositExpectationsRepository {
  /** Serialises registrations of one order (its row may not exist yet to lock). */
  async lockOrder(manager: EntityManager, orderId: string): Promise<void> {
    await manager.query("SELECT pg_advisory_xact_lock(hashtextextended('usdt_expectation:' || $1, 0))", [orderId]);
  }

  async find(manager: EntityManager, orderId: string): Promise<UsdtDepositExpectationRecord | null> {
    const [row] = await queryRows<UsdtDepositExpectationRecord>(
      manager,
      `SELECT ${COLUMNS} FROM usdt_deposit_expectations WHERE order_id = $1`,
      [orderId],
    );
    return row ?? null;
  }

  async insert(
    manager: EntityManager,
    expectation: { orderId: string; partnerId: string; sendBefore: string },
  ): Promise<UsdtDepositExpectationRecord> {
    const [row] = await queryRows<UsdtDepositExpectationRecord>(
      manager,
      `INSERT INTO usdt_deposit_expectations (order_id, partner_id, send_before) VALUES ($1, $2, $3) RETURNING ${COLUMNS}`,
      [expectation.orderId, expectation.partnerId, expectation.sendBefore],
    );
    return row;
  }

  /**
   * Names the order's hash; null when another expectation of the partner
   * already names it. Called under the hash's lock, so the check cannot race
   * another registration of the same hash.
   */
  async setTxHash(
    manager: EntityManager,
    expectation: { orderId: string; partnerId: string },
    txHash: string,
  ): Promise<UsdtDepositExpectationRecord | null> {
    const [taken] = await manager.query(
      'SELECT 1 FROM usdt_deposit_expectations WHERE partner_id = $1 AND tx_hash = $2',
      [expectation.partnerId, txHash],
    );
    if (taken) return null;
    const [row] = await queryRows<UsdtDepositExpectationRecord>(
      manager,
      `UPDATE usdt_deposit_expectations SET tx_hash = $2, hash_registered_at = now()
        WHERE order_id = $1 AND tx_hash IS NULL RETURNING ${COLUMNS}`,
      [expectation.orderId, txHash],
    );
    if (!row) throw new Error(`expectation ${expectation.orderId} had a hash under its lock`);
    return row;
  }

  /** Read under the deposit's hash lock, so a registration of that hash is either seen or waits. */
  async ofDeposit(manager: EntityManager, partnerId: string, txHash: string): Promise<ExpectationsOfDeposit> {
    const [row] = await queryRows<ExpectationsOfDeposit>(
      manager,
      `SELECT
         (SELECT order_id FROM usdt_deposit_expectations
           WHERE partner_id = $1 AND tx_hash = $2 AND send_before > now()) AS "claimingOrderId",
         (SELECT ${ISO('max(send_before)')} FROM usdt_deposit_expectations
           WHERE partner_id = $1 AND tx_hash IS NULL AND send_before > now()) AS "latestUnhashedSendBefore"`,
      [partnerId, txHash],
    );
    return row;
  }
}
