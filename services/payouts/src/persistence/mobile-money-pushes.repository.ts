/** mobile_money_pushes: amounts read back as strings, never JS numbers. */
import type { DataSource, DueRows, EntityManager, PageBounds } from '@platform/persistence';
import { claimDueSql, newestFirstPageSql, queryRows, withTransaction } from '@platform/persistence';
import { Answer, applyAnswer, PushStatus } from '../domain/mobile-money-push';

export interface PushRecord {
  pushId: string;
  partnerId: string;
  msisdn: string;
  amountKes: string;
  kesAccountReference: string;
  status: PushStatus;
  createdAt: Date;
  expiresAt: Date;
  answeredAt: Date | null;
  railReference: string | null;
  creditTransactionId: string | null;
}

const COLUMNS = `push_id AS "pushId", partner_id AS "partnerId", msisdn, amount_kes::text AS "amountKes",
  kes_account_reference AS "kesAccountReference", status, created_at AS "createdAt", expires_at AS "expiresAt",
  answered_at AS "answeredAt", rail_reference AS "railReference", credit_transaction_id AS "creditTransactionId"`;

const DUE_CREDIT_ROWS: DueRows = {
  table: 'mobile_money_pushes',
  dueColumn: 'next_credit_at',
  idColumn: 'push_id',
  attemptsColumn: 'credit_attempts',
};
const CLAIM_DUE_CREDITS_SQL = claimDueSql(DUE_CREDIT_ROWS, {
  idColumn: 'push_id',
  returning: COLUMNS,
  alsoSet: 'credit_attempts = credit_attempts + 1',
});

export interface PushListFilter {
  partnerId: string;
  status: PushStatus | null;
  page: PageBounds;
}

/** A push with its exact position in the newest-first listing. */
export type ListedPush = PushRecord & { createdAtExact: string };

export class MobileMoneyPushesRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(
    push: Pick<PushRecord, 'pushId' | 'partnerId' | 'msisdn' | 'amountKes' | 'kesAccountReference' | 'expiresAt'>,
  ): Promise<PushRecord> {
    const [row] = await queryRows<PushRecord>(
      this.dataSource.manager,
      `INSERT INTO mobile_money_pushes (push_id, partner_id, msisdn, amount_kes, kes_account_reference, status, expires_at)
       VALUES ($1, $2, $3, $4, $5, 'pending', $6) RETURNING ${COLUMNS}`,
      [push.pushId, push.partnerId, push.msisdn, push.amountKes, push.kesAccountReference, push.expiresAt],
    );
    return row;
  }

  /** The bank's answer to the prompt request: only a pending push moves. */
  async markNotSent(pushId: string, status: 'rejected' | 'unavailable'): Promise<void> {
    await this.dataSource.query(
      "UPDATE mobile_money_pushes SET status = $2 WHERE push_id = $1 AND status = 'pending'",
      [pushId, status],
    );
  }

  /**
   * The payer's answer, under the row lock so two answers serialise: the
   * first one a pending push takes stands. An approval is due for crediting
   * at once. Null for an unknown push or another partner's.
   */
  async answer(partnerId: string, pushId: string, answer: Answer, railReference: string): Promise<PushRecord | null> {
    return withTransaction(this.dataSource, async (manager) => {
      const [row] = await queryRows<PushRecord>(
        manager,
        `SELECT ${COLUMNS} FROM mobile_money_pushes WHERE push_id = $1 AND partner_id = $2 FOR UPDATE`,
        [pushId, partnerId],
      );
      if (!row) return null;
      const [{ now }] = await queryRows<{ now: Date }>(manager, 'SELECT now() AS now', []);
      const next = applyAnswer(row.status, new Date(row.expiresAt), new Date(now), answer);
      if (next === row.status) return row;
      const [updated] = await queryRows<PushRecord>(
        manager,
        `UPDATE mobile_money_pushes SET status = $2, answered_at = CASE WHEN $2 = 'expired' THEN NULL ELSE now() END,
           rail_reference = CASE WHEN $2 = 'approved' THEN $3 ELSE NULL END,
           next_credit_at = CASE WHEN $2 = 'approved' THEN now() ELSE NULL END
         WHERE push_id = $1 RETURNING ${COLUMNS}`,
        [pushId, next, railReference],
      );
      return updated;
    });
  }

  /** One page of the partner's prompts, newest first, along mobile_money_pushes_partner_created_idx. */
  async listPage(filter: PushListFilter): Promise<ListedPush[]> {
    const { sql, parameters } = newestFirstPageSql({
      table: 'mobile_money_pushes',
      select: COLUMNS,
      where: ['partner_id = $1'],
      parameters: [filter.partnerId],
      equals: { status: filter.status },
      bounds: filter.page,
      columns: { createdAt: 'created_at', id: 'push_id' },
    });
    return queryRows<ListedPush>(this.dataSource.manager, sql, parameters);
  }

  async find(pushId: string): Promise<PushRecord | null> {
    const [row] = await queryRows<PushRecord>(
      this.dataSource.manager,
      `SELECT ${COLUMNS} FROM mobile_money_pushes WHERE push_id = $1`,
      [pushId],
    );
    return row ?? null;
  }

  /** Where claimDueCredits finds due rows: measured for this worker's metrics. */
  readonly dueCreditRows: DueRows = DUE_CREDIT_ROWS;

  /** Claims approved pushes whose credit is due, leased `leaseMs` ahead for this replica. */
  async claimDueCredits(manager: EntityManager, limit: number, leaseMs: number): Promise<PushRecord[]> {
    return queryRows<PushRecord>(manager, CLAIM_DUE_CREDITS_SQL, [limit, leaseMs]);
  }

  async markCredited(pushId: string, creditTransactionId: string): Promise<void> {
    await this.dataSource.query(
      "UPDATE mobile_money_pushes SET status = 'credited', credit_transaction_id = $2, next_credit_at = NULL WHERE push_id = $1 AND status = 'approved'",
      [pushId, creditTransactionId],
    );
  }

  /** Unanswered prompts past their lifetime read expired; bounded per pass. Returns how many moved. */
  async expireUnanswered(manager: EntityManager, limit: number): Promise<number> {
    const rows = await queryRows<{ pushId: string }>(
      manager,
      `UPDATE mobile_money_pushes SET status = 'expired'
        WHERE push_id IN (SELECT push_id FROM mobile_money_pushes WHERE status = 'pending' AND expires_at <= now()
                           LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING push_id AS "pushId"`,
      [limit],
    );
    return rows.length;
  }
}
