/** usdt_sends: amounts read back as strings, never JS numbers. Transitions compare-and-set on the status. */
import type { EntityManager } from '@platform/persistence';
import { leaseTokenSelect, queryRows } from '@platform/persistence';
import type { ConfirmableStatus } from '../domain/confirmable-status';
import { ConfirmableListFilter, ConfirmableRows } from './confirmable-rows';

export type UsdtSendStatus = ConfirmableStatus;

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
  /** A failure decided before the chain was asked (the send still confirmed, its hold being given back). */
  decidedFailureReason: string | null;
  confirmationId: string | null;
  toAddress: string | null;
  chainSubmittedAt: Date | null;
  createdAt: Date;
  confirmedAt: Date | null;
  settledAt: Date | null;
  /** Only on a claimed row: its lease token (the timer value the claim wrote). */
  leaseToken?: string;
}

const COLUMNS = `send_id AS "sendId", partner_id AS "partnerId", idempotency_key AS "idempotencyKey", request_hash AS "requestHash",
  partner_reference AS "partnerReference", destination_wallet_id AS "destinationWalletId", usdt_amount::text AS "usdtAmount", status,
  failure_reason AS "failureReason", confirmation_id AS "confirmationId", to_address AS "toAddress", chain_submitted_at AS "chainSubmittedAt",
  created_at AS "createdAt", confirmed_at AS "confirmedAt", settled_at AS "settledAt",
  decided_failure_reason AS "decidedFailureReason"`;

export type UsdtSendListFilter = ConfirmableListFilter;

/** A send with its exact position in the newest-first listing. */
export type ListedUsdtSend = UsdtSendRecord & { createdAtExact: string };

export type NewUsdtSend = Pick<
  UsdtSendRecord,
  'sendId' | 'partnerId' | 'idempotencyKey' | 'requestHash' | 'partnerReference' | 'destinationWalletId' | 'usdtAmount'
>;

export class UsdtSendsRepository extends ConfirmableRows<UsdtSendRecord> {
  constructor() {
    super({ table: 'usdt_sends', idColumn: 'send_id', columns: COLUMNS, failureColumn: 'failure_reason' });
  }

  /** Claims the idempotency key with a 'creating' row (see TransfersRepository.claim). */
  async claim(manager: EntityManager, send: NewUsdtSend, leaseMs: number): Promise<UsdtSendRecord | null> {
    const [row] = await queryRows<UsdtSendRecord>(
      manager,
      `INSERT INTO usdt_sends (send_id, partner_id, idempotency_key, request_hash, partner_reference, destination_wallet_id, usdt_amount, status, next_action_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'creating', now() + make_interval(secs => $8::double precision / 1000))
       ON CONFLICT (partner_id, idempotency_key) DO NOTHING RETURNING ${COLUMNS}, ${leaseTokenSelect('next_action_at')}`,
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

  async findByKey(manager: EntityManager, partnerId: string, idempotencyKey: string): Promise<UsdtSendRecord | null> {
    const [row] = await queryRows<UsdtSendRecord>(
      manager,
      `SELECT ${COLUMNS} FROM usdt_sends WHERE partner_id = $1 AND idempotency_key = $2`,
      [partnerId, idempotencyKey],
    );
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

  /**
   * Records a failure decided before the send reached the chain (it then never
   * will); the send stays confirmed until its hold is given back. False when
   * it was handed to the chain meanwhile or is final.
   */
  async decideFailure(manager: EntityManager, sendId: string, failureReason: string): Promise<boolean> {
    const rows = await queryRows(
      manager,
      `UPDATE usdt_sends SET decided_failure_reason = $2
        WHERE send_id = $1 AND status = 'confirmed' AND chain_submitted_at IS NULL RETURNING send_id`,
      [sendId, failureReason],
    );
    return rows.length === 1;
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
    return this.recordOutcome(manager, sendId, {
      status: outcome.status,
      failure: outcome.status === 'failed' ? outcome.failureReason : null,
      settledAt: outcome.status === 'settled' ? outcome.settledAt : null,
    });
  }
}
