/** usdt_sends: amounts read back as strings, never JS numbers. Transitions compare-and-set on the status. */
import type { DueRows, EntityManager, PageBounds } from '@platform/persistence';
import { newestFirstPageSql, queryRows } from '@platform/persistence';

export type UsdtSendStatus = 'creating' | 'awaiting_confirmation' | 'confirmed' | 'settled' | 'failed' | 'expired';

export interface UsdtSendRecord {
  sendId: string;
  partnerId: string;
  idempotencyKey: string;
  requestHash: string;
  partnerReference: string;
  destinationWalletId: string;
  usdtAmount: string;
  status: UsdtSendStatus;
  failureReason: string | null;
  confirmationId: string | null;
  toAddress: string | null;
  chainSubmittedAt: Date | null;
  createdAt: Date;
  confirmedAt: Date | null;
  settledAt: Date | null;
}

const COLUMNS = `send_id AS "sendId", partner_id AS "partnerId", idempotency_key AS "idempotencyKey", request_hash AS "requestHash",
  partner_reference AS "partnerReference", destination_wallet_id AS "destinationWalletId", usdt_amount::text AS "usdtAmount", status,
  failure_reason AS "failureReason", confirmation_id AS "confirmationId", to_address AS "toAddress", chain_submitted_at AS "chainSubmittedAt",
  created_at AS "createdAt", confirmed_at AS "confirmedAt", settled_at AS "settledAt"`;

/** The sends a partner may see (a create still running its checks is not one of them). */
export type VisibleUsdtSendStatus = Exclude<UsdtSendStatus, 'creating'>;
export const VISIBLE_USDT_SEND_STATUSES: readonly VisibleUsdtSendStatus[] = [
  'awaiting_confirmation',
  'confirmed',
  'settled',
  'failed',
  'expired',
];

export interface UsdtSendListFilter {
  partnerId: string;
  status: VisibleUsdtSendStatus | null;
  partnerReference: string | null;
  idempotencyKey: string | null;
  page: PageBounds;
}

/** A send with its exact position in the newest-first listing. */
export type ListedUsdtSend = UsdtSendRecord & { createdAtExact: string };

export type NewUsdtSend = Pick<
  UsdtSendRecord,
  'sendId' | 'partnerId' | 'idempotencyKey' | 'requestHash' | 'partnerReference' | 'destinationWalletId' | 'usdtAmount'
>;

export class UsdtSendsRepository {
  /** The status of each of `ids` that still exists (hold reconciliation: an id absent from the map has no row). */
  async statusesOf(manager: EntityManager, ids: string[]): Promise<Map<string, UsdtSendStatus>> {
    if (ids.length === 0) return new Map();
    const rows = await queryRows<{ id: string; status: UsdtSendStatus }>(
      manager,
      'SELECT send_id AS id, status FROM usdt_sends WHERE send_id = ANY($1::uuid[])',
      [ids],
    );
    return new Map(rows.map((row) => [row.id, row.status]));
  }

  /** Claims the idempotency key with a 'creating' row (see TransfersRepository.claim). */
  async claim(manager: EntityManager, send: NewUsdtSend, leaseMs: number): Promise<UsdtSendRecord | null> {
    const [row] = await queryRows<UsdtSendRecord>(
      manager,
      `INSERT INTO usdt_sends (send_id, partner_id, idempotency_key, request_hash, partner_reference, destination_wallet_id, usdt_amount, status, next_action_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'creating', now() + make_interval(secs => $8::double precision / 1000))
       ON CONFLICT (partner_id, idempotency_key) DO NOTHING RETURNING ${COLUMNS}`,
      [
        send.sendId,
        send.partnerId,
        send.idempotencyKey,
        send.requestHash,
        send.partnerReference,
        send.destinationWalletId,
        send.usdtAmount,
        leaseMs,
      ],
    );
    return row ?? null;
  }

  /** One page of the partner's visible sends, newest first, along usdt_sends_partner_created_idx. */
  async listPage(manager: EntityManager, filter: UsdtSendListFilter): Promise<ListedUsdtSend[]> {
    const { sql, parameters } = newestFirstPageSql({
      table: 'usdt_sends',
      select: COLUMNS,
      where: ['partner_id = $1', "status <> 'creating'"],
      parameters: [filter.partnerId],
      equals: {
        status: filter.status,
        partner_reference: filter.partnerReference,
        idempotency_key: filter.idempotencyKey,
      },
      bounds: filter.page,
      columns: { createdAt: 'created_at', id: 'send_id' },
    });
    return queryRows<ListedUsdtSend>(manager, sql, parameters);
  }

  async findByKey(manager: EntityManager, partnerId: string, idempotencyKey: string): Promise<UsdtSendRecord | null> {
    const [row] = await queryRows<UsdtSendRecord>(
      manager,
      `SELECT ${COLUMNS} FROM usdt_sends WHERE partner_id = $1 AND idempotency_key = $2`,
      [partnerId, idempotencyKey],
    );
    return row ?? null;
  }

  async find(manager: EntityManager, partnerId: string, sendId: string): Promise<UsdtSendRecord | null> {
    const [row] = await queryRows<UsdtSendRecord>(
      manager,
      `SELECT ${COLUMNS} FROM usdt_sends WHERE send_id = $1 AND partner_id = $2`,
      [sendId, partnerId],
    );
    return row ?? null;
  }

  async findById(manager: EntityManager, sendId: string): Promise<UsdtSendRecord | null> {
    const [row] = await queryRows<UsdtSendRecord>(manager, `SELECT ${COLUMNS} FROM usdt_sends WHERE send_id = $1`, [
      sendId,
    ]);
    return row ?? null;
  }

  /** creating → awaiting_confirmation, due when the code expires; the wallet's address as checked at create (checked again at release). */
  async markAwaitingConfirmation(
    manager: EntityManager,
    sendId: string,
    confirmationId: string,
    expiresAt: Date,
    toAddress: string,
  ): Promise<boolean> {
    const rows = await queryRows(
      manager,
      `UPDATE usdt_sends SET status = 'awaiting_confirmation', confirmation_id = $2, next_action_at = $3, to_address = $4
        WHERE send_id = $1 AND status = 'creating' RETURNING send_id`,
      [sendId, confirmationId, expiresAt, toAddress],
    );
    return rows.length === 1;
  }

  async deleteCreating(manager: EntityManager, sendId: string): Promise<boolean> {
    const rows = await queryRows(
      manager,
      "DELETE FROM usdt_sends WHERE send_id = $1 AND status = 'creating' RETURNING send_id",
      [sendId],
    );
    return rows.length === 1;
  }

  /** awaiting_confirmation → confirmed, due at once for release to the chain. */
  async markConfirmed(manager: EntityManager, confirmationId: string, confirmedAt: Date): Promise<number> {
    const rows = await queryRows(
      manager,
      `UPDATE usdt_sends SET status = 'confirmed', confirmed_at = $2, next_action_at = now()
        WHERE confirmation_id = $1 AND status = 'awaiting_confirmation' RETURNING send_id`,
      [confirmationId, confirmedAt],
    );
    return rows.length;
  }

  async rescheduleExpiry(manager: EntityManager, confirmationId: string, expiresAt: Date): Promise<void> {
    await manager.query(
      "UPDATE usdt_sends SET next_action_at = $2 WHERE confirmation_id = $1 AND status = 'awaiting_confirmation'",
      [confirmationId, expiresAt],
    );
  }

  async markExpired(manager: EntityManager, sendId: string): Promise<boolean> {
    const rows = await queryRows(
      manager,
      `UPDATE usdt_sends SET status = 'expired', completed_at = now(), next_action_at = NULL
        WHERE send_id = $1 AND status = 'awaiting_confirmation' RETURNING send_id`,
      [sendId],
    );
    return rows.length === 1;
  }

  async markSubmitted(
    manager: EntityManager,
    sendId: string,
    toAddress: string,
    submittedAt: Date,
    nextActionAt: Date,
  ): Promise<void> {
    await manager.query(
      "UPDATE usdt_sends SET to_address = $2, chain_submitted_at = $3, next_action_at = $4 WHERE send_id = $1 AND status = 'confirmed'",
      [sendId, toAddress, submittedAt, nextActionAt],
    );
  }

  async reschedule(manager: EntityManager, sendId: string, nextActionAt: Date): Promise<void> {
    await manager.query("UPDATE usdt_sends SET next_action_at = $2 WHERE send_id = $1 AND status = 'confirmed'", [
      sendId,
      nextActionAt,
    ]);
  }

  async markOutcome(
    manager: EntityManager,
    sendId: string,
    outcome: { status: 'settled'; settledAt: Date } | { status: 'failed'; failureReason: string },
  ): Promise<boolean> {
    const rows = await queryRows(
      manager,
      `UPDATE usdt_sends SET status = $2, failure_reason = $3, settled_at = $4, completed_at = now(), next_action_at = NULL
        WHERE send_id = $1 AND status = 'confirmed' RETURNING send_id`,
      [
        sendId,
        outcome.status,
        outcome.status === 'failed' ? outcome.failureReason : null,
        outcome.status === 'settled' ? outcome.settledAt : null,
      ],
    );
    return rows.length === 1;
  }

  /** Where claimDue finds due rows: measured for this worker's metrics. */
  readonly dueRows: DueRows = { table: 'usdt_sends', dueColumn: 'next_action_at', idColumn: 'send_id' };

  async claimDue(manager: EntityManager, limit: number, leaseMs: number): Promise<UsdtSendRecord[]> {
    return queryRows<UsdtSendRecord>(
      manager,
      `UPDATE usdt_sends SET next_action_at = now() + make_interval(secs => $2::double precision / 1000)
        WHERE send_id IN (SELECT send_id FROM usdt_sends WHERE next_action_at <= now()
                           ORDER BY next_action_at LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING ${COLUMNS}`,
      [limit, leaseMs],
    );
  }
}
