/**
 * What the tables of partner-confirmed movements (transfers, USDT sends) share:
 * a row claimed 'creating', then awaiting its confirmation code, confirmed,
 * and settled or failed; or expired when the code lapses. Every transition
 * compare-and-sets on the status; `next_action_at` makes a row due for its
 * worker. Each table's repository adds what is its own (its create, its columns).
 */
import type { DueRows, EntityManager, PageBounds } from '@platform/persistence';
import { claimDueSql, newestFirstPageSql, queryRows } from '@platform/persistence';
import type { ConfirmableStatus, VisibleStatus } from '../domain/confirmable-status';

export interface ConfirmableListFilter {
  partnerId: string;
  status: VisibleStatus | null;
  partnerReference: string | null;
  idempotencyKey: string | null;
  page: PageBounds;
}

/** A settled or failed movement's outcome, its failure column named by the table. */
export interface RecordedOutcome {
  status: 'settled' | 'failed';
  failure: string | null;
  settledAt: Date | null;
}

export interface ConfirmableTable {
  /** The table's name (trusted: a constant of the repository, never input). */
  table: string;
  /** Its primary key column, a uuid. */
  idColumn: string;
  /** The SELECT list that reads a row as the record type, amounts as text. */
  columns: string;
  /** The column a failed outcome's reason goes into. */
  failureColumn: string;
}

export abstract class ConfirmableRows<Row> {
  /** Where claimDue finds due rows: measured for this worker's metrics. */
  readonly dueRows: DueRows;

  private readonly claimDueSql: string;

  protected constructor(protected readonly shape: ConfirmableTable) {
    this.dueRows = { table: shape.table, dueColumn: 'next_action_at', idColumn: shape.idColumn };
    this.claimDueSql = claimDueSql(this.dueRows, { idColumn: shape.idColumn, returning: shape.columns });
  }

  /** The status of each of `ids` that still exists (hold reconciliation: an id absent from the map has no row). */
  async statusesOf(manager: EntityManager, ids: string[]): Promise<Map<string, ConfirmableStatus>> {
    if (ids.length === 0) return new Map();
    const { table, idColumn } = this.shape;
    const rows = await queryRows<{ id: string; status: ConfirmableStatus }>(
      manager,
      `SELECT ${idColumn} AS id, status FROM ${table} WHERE ${idColumn} = ANY($1::uuid[])`,
      [ids],
    );
    return new Map(rows.map((row) => [row.id, row.status]));
  }

  /** One page of the partner's visible rows, newest first, along the table's (partner_id, created_at) index. */
  async listPage(manager: EntityManager, filter: ConfirmableListFilter): Promise<(Row & { createdAtExact: string })[]> {
    const { sql, parameters } = newestFirstPageSql({
      table: this.shape.table,
      select: this.shape.columns,
      where: ['partner_id = $1', "status <> 'creating'"],
      parameters: [filter.partnerId],
      equals: {
        status: filter.status,
        partner_reference: filter.partnerReference,
        idempotency_key: filter.idempotencyKey,
      },
      bounds: filter.page,
      columns: { createdAt: 'created_at', id: this.shape.idColumn },
    });
    return queryRows<Row & { createdAtExact: string }>(manager, sql, parameters);
  }

  async find(manager: EntityManager, partnerId: string, id: string): Promise<Row | null> {
    const { table, idColumn, columns } = this.shape;
    const [row] = await queryRows<Row>(
      manager,
      `SELECT ${columns} FROM ${table} WHERE ${idColumn} = $1 AND partner_id = $2`,
      [id, partnerId],
    );
    return row ?? null;
  }

  async findById(manager: EntityManager, id: string): Promise<Row | null> {
    const { table, idColumn, columns } = this.shape;
    const [row] = await queryRows<Row>(manager, `SELECT ${columns} FROM ${table} WHERE ${idColumn} = $1`, [id]);
    return row ?? null;
  }

  /** A refused or abandoned create leaves nothing behind: the key is free again. */
  async deleteCreating(manager: EntityManager, id: string): Promise<boolean> {
    const { table, idColumn } = this.shape;
    const rows = await queryRows(
      manager,
      `DELETE FROM ${table} WHERE ${idColumn} = $1 AND status = 'creating' RETURNING ${idColumn}`,
      [id],
    );
    return rows.length === 1;
  }

  /**
   * A create that failed without undoing all it did (a peer unreachable)
   * gives its claim up at once: the row is due now, for a repeat of the
   * request to take over or the scheduler to undo, instead of after its lease.
   */
  async releaseCreating(manager: EntityManager, id: string): Promise<void> {
    const { table, idColumn } = this.shape;
    await manager.query(
      `UPDATE ${table} SET next_action_at = now() WHERE ${idColumn} = $1 AND status = 'creating' AND next_action_at > now()`,
      [id],
    );
  }

  /**
   * Leases an abandoned create's row (claim released, or lease passed) to
   * this caller for `leaseMs`, to undo it; false while its owner still holds
   * it or once it is gone. One caller of many wins (the row's lock decides).
   */
  async claimAbandoned(manager: EntityManager, id: string, leaseMs: number): Promise<boolean> {
    const { table, idColumn } = this.shape;
    const rows = await queryRows(
      manager,
      `UPDATE ${table} SET next_action_at = now() + make_interval(secs => $2::double precision / 1000)
        WHERE ${idColumn} = $1 AND status = 'creating' AND next_action_at <= now() RETURNING ${idColumn}`,
      [id, leaseMs],
    );
    return rows.length === 1;
  }

  async rescheduleExpiry(manager: EntityManager, confirmationId: string, expiresAt: Date): Promise<void> {
    await manager.query(
      `UPDATE ${this.shape.table} SET next_action_at = $2 WHERE confirmation_id = $1 AND status = 'awaiting_confirmation'`,
      [confirmationId, expiresAt],
    );
  }

  async markExpired(manager: EntityManager, id: string): Promise<boolean> {
    const { table, idColumn } = this.shape;
    const rows = await queryRows(
      manager,
      `UPDATE ${table} SET status = 'expired', completed_at = now(), next_action_at = NULL
        WHERE ${idColumn} = $1 AND status = 'awaiting_confirmation' RETURNING ${idColumn}`,
      [id],
    );
    return rows.length === 1;
  }

  /** confirmed → settled or failed, no longer due. False when another worker recorded the outcome first. */
  protected async recordOutcome(manager: EntityManager, id: string, outcome: RecordedOutcome): Promise<boolean> {
    const { table, idColumn, failureColumn } = this.shape;
    const rows = await queryRows(
      manager,
      `UPDATE ${table} SET status = $2, ${failureColumn} = $3, settled_at = $4, completed_at = now(), next_action_at = NULL
        WHERE ${idColumn} = $1 AND status = 'confirmed' RETURNING ${idColumn}`,
      [id, outcome.status, outcome.failure, outcome.settledAt],
    );
    return rows.length === 1;
  }

  /** Claims due rows (abandoned creates, lapsed codes, sends to release), leased `leaseMs` ahead. */
  async claimDue(manager: EntityManager, limit: number, leaseMs: number): Promise<Row[]> {
    return queryRows<Row>(manager, this.claimDueSql, [limit, leaseMs]);
  }
}
