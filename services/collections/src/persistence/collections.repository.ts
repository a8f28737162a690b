/** SQL for collections and fee terms. Every function takes the manager of the caller's transaction. */
import type { DueRows, EntityManager, PageBounds } from '@platform/persistence';
import { keysetConditions, queryRows } from '@platform/persistence';
import type { CollectionRecord, CollectionStatus, RefundReason } from '../domain/collection';
import type { FeeTerms } from '../domain/collection-fee';

interface CollectionRow {
  id: string;
  partner_id: string;
  reference: string;
  partner_reference: string;
  request_hash: string;
  payer_label: string;
  status: CollectionStatus;
  account_number: string;
  fee_percent_bps: number;
  fee_flat_minor: string;
  fee_cap_minor: string;
  expected_amount: string | null;
  gross_amount: string | null;
  fee_amount: string | null;
  net_amount: string | null;
  amount_mismatch: boolean | null;
  sender_name: string | null;
  deposit_id: string | null;
  credit_entry_id: string | null;
  refund_reason: RefundReason | null;
  created_at: Date;
  expires_at: Date;
}

function toRecord(row: CollectionRow): CollectionRecord {
  return {
    id: row.id,
    partnerId: row.partner_id,
    reference: row.reference,
    partnerReference: row.partner_reference,
    requestHash: row.request_hash,
    payerLabel: row.payer_label,
    currency: 'USD',
    status: row.status,
    accountNumber: row.account_number,
    feePercentBps: row.fee_percent_bps,
    feeFlatMinor: BigInt(row.fee_flat_minor),
    feeCapMinor: BigInt(row.fee_cap_minor),
    expectedAmount: row.expected_amount,
    grossAmount: row.gross_amount,
    feeAmount: row.fee_amount,
    netAmount: row.net_amount,
    amountMismatch: row.amount_mismatch,
    senderName: row.sender_name,
    depositId: row.deposit_id,
    creditEntryId: row.credit_entry_id,
    refundReason: row.refund_reason,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}

export interface CollectionListFilter {
  partnerId: string;
  reference: string | null;
  status: CollectionStatus | null;
  page: PageBounds;
}

export interface AcceptedDeposit {
  grossAmount: string;
  feeAmount: string;
  netAmount: string;
  amountMismatch: boolean | null;
  senderName: string | null;
  depositId: string;
  creditEntryId: string;
}

export class CollectionsRepository {
  async insert(manager: EntityManager, record: CollectionRecord): Promise<void> {
    await manager.query(
      `INSERT INTO collections (id, partner_id, reference, partner_reference, request_hash, payer_label, currency, status,
         account_number, fee_percent_bps, fee_flat_minor, fee_cap_minor, expected_amount, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
      [
        record.id,
        record.partnerId,
        record.reference,
        record.partnerReference,
        record.requestHash,
        record.payerLabel,
        record.currency,
        record.status,
        record.accountNumber,
        record.feePercentBps,
        record.feeFlatMinor.toString(),
        record.feeCapMinor.toString(),
        record.expectedAmount,
        record.createdAt,
        record.expiresAt,
      ],
    );
  }

  async findByPartnerReference(
    manager: EntityManager,
    partnerId: string,
    partnerReference: string,
  ): Promise<CollectionRecord | null> {
    const rows = await queryRows<CollectionRow>(
      manager,
      'SELECT * FROM collections WHERE partner_id = $1 AND partner_reference = $2',
      [partnerId, partnerReference],
    );
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async findForPartner(
    manager: EntityManager,
    partnerId: string,
    id: string,
    lock = false,
  ): Promise<CollectionRecord | null> {
    const rows = await queryRows<CollectionRow>(
      manager,
      `SELECT * FROM collections WHERE partner_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`,
      [partnerId, id],
    );
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async lockById(manager: EntityManager, id: string): Promise<CollectionRecord | null> {
    const rows = await queryRows<CollectionRow>(manager, 'SELECT * FROM collections WHERE id = $1 FOR UPDATE', [id]);
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async list(manager: EntityManager, filter: CollectionListFilter): Promise<CollectionRecord[]> {
    const parameters: unknown[] = [filter.partnerId];
    const conditions = ['partner_id = $1'];
    const add = (sql: (placeholder: string) => string, value: unknown) => {
      parameters.push(value);
      conditions.push(sql(`$${parameters.length}`));
    };
    if (filter.reference !== null) add((p) => `reference = ${p}`, filter.reference);
    if (filter.status !== null) add((p) => `status = ${p}`, filter.status);
    conditions.push(...keysetConditions(filter.page, parameters));
    parameters.push(filter.page.fetchLimit);
    const rows = await queryRows<CollectionRow>(
      manager,
      `SELECT * FROM collections WHERE ${conditions.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${parameters.length}`,
      parameters,
    );
    return rows.map(toRecord);
  }

  /** open → received, with the deposit's amounts and the caller-made ledger entry id; due for the step driver at once. */
  async markReceived(manager: EntityManager, id: string, deposit: AcceptedDeposit, at: Date): Promise<void> {
    await manager.query(
      `UPDATE collections SET status = 'received', gross_amount = $2, fee_amount = $3, net_amount = $4, amount_mismatch = $5,
         sender_name = $6, deposit_id = $7, credit_entry_id = $8, received_at = $9, next_step_at = $9
       WHERE id = $1 AND status = 'open'`,
      [
        id,
        deposit.grossAmount,
        deposit.feeAmount,
        deposit.netAmount,
        deposit.amountMismatch,
        deposit.senderName,
        deposit.depositId,
        deposit.creditEntryId,
        at,
      ],
    );
  }

  /** open → refunded: the contribution went back to the payer; nothing was booked. */
  async markRefunded(
    manager: EntityManager,
    id: string,
    refund: {
      grossAmount: string;
      senderName: string | null;
      depositId: string;
      reason: RefundReason;
      amountMismatch: boolean | null;
    },
    at: Date,
  ): Promise<void> {
    await manager.query(
      `UPDATE collections SET status = 'refunded', gross_amount = $2, sender_name = $3, deposit_id = $4, refund_reason = $5,
         amount_mismatch = $6, received_at = $7, closed_at = $7
       WHERE id = $1 AND status = 'open'`,
      [id, refund.grossAmount, refund.senderName, refund.depositId, refund.reason, refund.amountMismatch, at],
    );
  }

  /** Where claimDueForCredit finds collections due for crediting: measured for the credit step's metrics. */
  readonly dueForCredit: DueRows = {
    table: 'collections',
    dueColumn: 'next_step_at',
    where: "status IN ('received', 'crediting')",
    idColumn: 'id',
    attemptsColumn: 'step_attempts',
  };
  /** Where expireDue finds open collections past their lifetime: measured for the expiry step's metrics. */
  readonly dueForExpiry: DueRows = { table: 'collections', dueColumn: 'expires_at', where: "status = 'open'" };

  /**
   * Claims up to `limit` collections due for crediting (received, or crediting
   * whose lease ran out), skipping rows another replica holds, and leases them
   * for `leaseMs`: status crediting, next_step_at pushed out, attempts counted.
   */
  async claimDueForCredit(
    manager: EntityManager,
    limit: number,
    leaseMs: number,
    onlyId?: string,
  ): Promise<CollectionRecord[]> {
    const rows = await queryRows<CollectionRow>(
      manager,
      `UPDATE collections SET status = 'crediting', step_attempts = step_attempts + 1,
         next_step_at = now() + make_interval(secs => $2::double precision / 1000)
       WHERE id IN (
         SELECT id FROM collections WHERE status IN ('received', 'crediting') AND next_step_at <= now()
           AND ($3::uuid IS NULL OR id = $3::uuid)
         ORDER BY next_step_at LIMIT $1 FOR UPDATE SKIP LOCKED)
       RETURNING *`,
      [limit, leaseMs, onlyId ?? null],
    );
    return rows.map(toRecord);
  }

  async stepAttempts(manager: EntityManager, id: string): Promise<number> {
    const rows = await queryRows<{ step_attempts: number }>(
      manager,
      'SELECT step_attempts FROM collections WHERE id = $1',
      [id],
    );
    return rows[0]?.step_attempts ?? 0;
  }

  /** A failed ledger call: try again after `retryDelayMs`. */
  async recordStepFailure(manager: EntityManager, id: string, retryDelayMs: number, error: string): Promise<void> {
    await manager.query(
      `UPDATE collections SET next_step_at = now() + make_interval(secs => $2::double precision / 1000), last_step_error = $3
       WHERE id = $1 AND status = 'crediting'`,
      [id, retryDelayMs, error],
    );
  }

  /** crediting → credited; false when another attempt finished first. */
  async markCredited(manager: EntityManager, id: string, at: Date): Promise<boolean> {
    const rows = await queryRows<{ id: string }>(
      manager,
      `UPDATE collections SET status = 'credited', credited_at = $2, closed_at = $2, next_step_at = NULL, last_step_error = NULL
       WHERE id = $1 AND status = 'crediting' RETURNING id`,
      [id, at],
    );
    return rows.length === 1;
  }

  /** Expires up to `limit` open collections past their lifetime, skipping rows in use. */
  async expireDue(manager: EntityManager, limit: number): Promise<number> {
    const rows = await queryRows<{ id: string }>(
      manager,
      `UPDATE collections SET status = 'expired', closed_at = now()
       WHERE id IN (SELECT id FROM collections WHERE status = 'open' AND expires_at <= now()
                    ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED)
       RETURNING id`,
      [limit],
    );
    return rows.length;
  }

  /** open → expired for one collection the caller holds locked. */
  async expireOne(manager: EntityManager, id: string): Promise<void> {
    await manager.query(
      `UPDATE collections SET status = 'expired', closed_at = now() WHERE id = $1 AND status = 'open'`,
      [id],
    );
  }

  /** Sandbox clock: the lifetime of an open collection ends now. */
  async endLifetimeNow(manager: EntityManager, id: string): Promise<void> {
    await manager.query(`UPDATE collections SET expires_at = now() WHERE id = $1 AND status = 'open'`, [id]);
  }

  async findFeeTerms(manager: EntityManager, partnerId: string): Promise<FeeTerms | null> {
    const rows = await queryRows<{ percent_bps: number; flat_minor: string; cap_minor: string }>(
      manager,
      'SELECT percent_bps, flat_minor, cap_minor FROM collection_fee_terms WHERE partner_id = $1',
      [partnerId],
    );
    const row = rows[0];
    return row
      ? { percentBps: row.percent_bps, flatMinor: BigInt(row.flat_minor), capMinor: BigInt(row.cap_minor) }
      : null;
  }

  async upsertFeeTerms(manager: EntityManager, partnerId: string, terms: FeeTerms): Promise<void> {
    await manager.query(
      `INSERT INTO collection_fee_terms (partner_id, percent_bps, flat_minor, cap_minor) VALUES ($1, $2, $3, $4)
       ON CONFLICT (partner_id) DO UPDATE SET percent_bps = EXCLUDED.percent_bps, flat_minor = EXCLUDED.flat_minor,
         cap_minor = EXCLUDED.cap_minor, updated_at = now()`,
      [partnerId, terms.percentBps, terms.flatMinor.toString(), terms.capMinor.toString()],
    );
  }
}
