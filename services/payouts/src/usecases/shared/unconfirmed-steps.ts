/**
 * The time-driven steps a transfer and a USDT send share while they are not
 * confirmed, run by the durable scheduler:
 * - creating past its lease: the create died midway; its hold is voided, its
 *   cap usage released and the row removed (the key is free again);
 * - awaiting_confirmation past the code's expiry: the confirmation is marked
 *   expired first (so a late code is refused), then the hold is voided and the
 *   cap released, then the row reads `expired` and confirmation.expired is
 *   enqueued in the same transaction.
 * Each step is safe to run again. The hold and the cap usage carry the row's id.
 */
import { enqueueEvent } from '@platform/events';
import type { Logger } from '@platform/logger';
import type { DataSource } from '@platform/persistence';
import { withTransaction } from '@platform/persistence';
import { releaseCapIdempotently, voidHoldIdempotently } from '../../adapters/peers/holds';
import type { LedgerApi, TradingLimitsApi } from '../../adapters/peers/peers';
import type { ConfirmableRows } from '../../persistence/confirmable-rows';
import type { ConfirmationsRepository } from '../../persistence/confirmations.repository';
import { lapseConfirmation } from '../lapse-confirmation';

export interface UnconfirmedStepsDependencies {
  dataSource: DataSource;
  confirmations: ConfirmationsRepository;
  ledger: Pick<LedgerApi, 'voidHold' | 'getHold'>;
  trading: TradingLimitsApi;
  logger: Logger;
}

/** What tells a transfer from a send in these steps. */
export interface UnconfirmedKind<Row> {
  /** The table's rows (their shared transitions). */
  rows: Pick<ConfirmableRows<Row>, 'deleteCreating' | 'rescheduleExpiry' | 'markExpired'>;
  /** The confirmation.expired event's subjectType. */
  subjectType: 'transfer' | 'usdt_send';
  /** How logs and errors name one: "transfer", "usdt send". */
  noun: string;
  /** The log field that carries its id. */
  idField: string;
  idOf(row: Row): string;
}

export interface UnconfirmedRow {
  partnerId: string;
  confirmationId: string | null;
}

export class UnconfirmedSteps<Row extends UnconfirmedRow> {
  constructor(
    private readonly deps: UnconfirmedStepsDependencies,
    private readonly kind: UnconfirmedKind<Row>,
  ) {}

  /** The hold voided and the cap usage released, idempotent on the row's id (a send failed by the chain too). */
  async giveBack(row: Row): Promise<void> {
    const id = this.kind.idOf(row);
    await voidHoldIdempotently(this.deps.ledger, id);
    await releaseCapIdempotently(this.deps.trading, id);
  }

  async abandon(row: Row): Promise<void> {
    const id = this.kind.idOf(row);
    await this.giveBack(row);
    await this.kind.rows.deleteCreating(this.deps.dataSource.manager, id);
    this.deps.logger.warn(`abandoned ${this.kind.noun} create undone`, { [this.kind.idField]: id });
  }

  async expire(row: Row): Promise<void> {
    const { rows, subjectType, noun, idField } = this.kind;
    const id = this.kind.idOf(row);
    const confirmationId = row.confirmationId;
    if (!confirmationId) throw new Error(`${noun} ${id} awaits confirmation without one`);
    const lapsed = await lapseConfirmation(
      this.deps.dataSource,
      this.deps.confirmations,
      { partnerId: row.partnerId, confirmationId },
      (manager, expiresAt) => rows.rescheduleExpiry(manager, confirmationId, expiresAt),
    );
    if (!lapsed) return;
    await this.giveBack(row);
    await withTransaction(this.deps.dataSource, async (manager) => {
      if (!(await rows.markExpired(manager, id))) return;
      await enqueueEvent(manager, {
        partnerId: row.partnerId,
        type: 'confirmation.expired',
        data: { confirmationId, subjectType, subjectId: id, expiredAt: new Date().toISOString() },
      });
    });
    this.deps.logger.info(`${noun} expired: code not confirmed in time`, { [idField]: id, confirmationId });
  }
}
