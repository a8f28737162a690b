/**
 * Gives back payouts' orphaned holds (domain/hold-owner.ts says which are
 * orphans). Run by a BatchSweeper in every replica: each call reads one page
 * of payouts' own pending holds from the ledger (placed at least `minAgeMs`
 * ago; nearly every hold resolves on its own long before), reads their
 * transfers and sends, and voids the holds whose owner is gone or final with
 * the ledger's ordinary VoidHold: the same balanced release as every other
 * void, idempotent, so replicas racing on one hold are harmless. Payouts asks
 * the ledger; the ledger never asks payouts.
 */
import { isAppError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import type { DataSource } from '@platform/persistence';
import type { LedgerApi, LedgerHold } from '../../adapters/peers/peers';
import { holdOwner, HoldOwnerKind, holdVerdict, OwnerStatus, parseHoldOwner } from '../../domain/hold-owner';
import type { TransfersRepository } from '../../persistence/transfers.repository';
import type { UsdtSendsRepository } from '../../persistence/usdt-sends.repository';

export interface ReconcileHoldsDependencies {
  dataSource: DataSource;
  transfers: Pick<TransfersRepository, 'statusesOf'>;
  sends: Pick<UsdtSendsRepository, 'statusesOf'>;
  ledger: Pick<LedgerApi, 'listOwnedHolds' | 'voidHold'>;
  logger: Logger;
  /** Holds placed more recently than this are not looked at (wall-clock). */
  minAgeMs: number;
  now?: () => Date;
}

export class ReconcileHoldsUseCase {
  /** Where the next page starts (null: from the first hold). Per process: a restart walks from the start again. */
  private afterHoldId: string | null = null;

  constructor(private readonly deps: ReconcileHoldsDependencies) {}

  /** Looks at one page of at most `pageSize` holds; answers how many it looked at (a short page ends the walk). */
  async execute(pageSize: number): Promise<number> {
    const now = this.deps.now?.() ?? new Date();
    const { holds } = await this.deps.ledger.listOwnedHolds({
      placedBefore: new Date(now.getTime() - this.deps.minAgeMs).toISOString(),
      afterHoldId: this.afterHoldId ?? undefined,
      limit: pageSize,
    });
    this.afterHoldId = holds.length < pageSize ? null : holds[holds.length - 1].holdId;
    const statuses = await this.ownerStatuses(holds);
    for (const hold of holds) await this.reconcile(hold, statuses);
    return holds.length;
  }

  /** Owner status by owner string; an owner whose row is gone is absent. */
  private async ownerStatuses(holds: LedgerHold[]): Promise<Map<string, OwnerStatus>> {
    const owners = holds.map((hold) => parseHoldOwner(hold.owner)).filter((owner) => owner !== null);
    const ids = (kind: HoldOwnerKind) => owners.filter((owner) => owner.kind === kind).map((owner) => owner.id);
    const { manager } = this.deps.dataSource;
    const [transfers, sends] = await Promise.all([
      this.deps.transfers.statusesOf(manager, ids('transfer')),
      this.deps.sends.statusesOf(manager, ids('usdt_send')),
    ]);
    const statuses = new Map<string, OwnerStatus>();
    for (const [id, status] of transfers) statuses.set(holdOwner('transfer', id), status);
    for (const [id, status] of sends) statuses.set(holdOwner('usdt_send', id), status);
    return statuses;
  }

  private async reconcile(hold: LedgerHold, statuses: Map<string, OwnerStatus>): Promise<void> {
    if (!parseHoldOwner(hold.owner)) {
      this.deps.logger.error('pending hold with an owner payouts cannot read; left alone', {
        holdId: hold.holdId,
        owner: hold.owner,
      });
      return;
    }
    const status = statuses.get(hold.owner!) ?? null;
    if (holdVerdict(status) === 'keep') return;
    try {
      await this.deps.ledger.voidHold({ holdId: hold.holdId });
      this.deps.logger.warn('orphaned hold voided', {
        holdId: hold.holdId,
        owner: hold.owner,
        ownerStatus: status ?? 'missing',
        amount: hold.amount,
        currency: hold.currency,
      });
    } catch (error) {
      // Resolved since it was listed (its flow posted or voided it): nothing is left to give back.
      if (isAppError(error) && error.code === 'LEDGER_HOLD_ALREADY_RESOLVED') return;
      this.deps.logger.warn('orphaned hold not voided; the next pass retries', { holdId: hold.holdId, error });
    }
  }
}
