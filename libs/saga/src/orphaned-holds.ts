/**
 * The backstop of the sagas that place ledger holds (trading's orders,
 * payouts' transfers and sends): a saga whose process died between placing a
 * hold and posting or voiding it leaves the hold pending, its owner gone or
 * final. This walker gives such holds back. Run by a BatchSweeper in every
 * replica: each call reads one page of the service's own pending holds from
 * the ledger (ListOwnedHolds, placed at least `minAgeMs` ago; nearly every
 * hold resolves on its own long before), reads their owners' statuses in the
 * service's own tables, and voids the holds whose owner is gone or final with
 * the ledger's ordinary VoidHold: the same balanced release as every other
 * void, idempotent, so replicas racing on one hold are harmless. The service
 * asks the ledger; the ledger never asks the service about holds.
 */
import { isAppError } from '@platform/errors';
import type { Logger } from '@platform/logger';

/** The fields of a ledger hold (ledger.v1.Hold) the walk reads. */
export interface OwnedHold {
  holdId: string;
  /** `<service>:<kind>:<id>`; absent on holds placed without one. */
  owner?: string;
  amount: string;
  currency: string;
}

/** The two ledger calls the walk makes (the service's ledger client). */
export interface OwnedHoldsLedger<H extends OwnedHold> {
  listOwnedHolds(request: { placedBefore: string; afterHoldId?: string; limit: number }): Promise<{ holds: H[] }>;
  voidHold(request: { holdId: string }): Promise<unknown>;
}

/** What only the service knows: how to read its owners, where their statuses are, and which are final. */
export interface HoldOwners<Status> {
  /** The service, as its log lines name it. */
  service: string;
  /** The key of the owner a hold names (the owner string, an order id…); null when the service cannot read it. */
  parse(owner: string | undefined): string | null;
  /** The status of each owner whose row still exists, by key; an absent key has no row. */
  statuses(ownerKeys: string[]): Promise<Map<string, Status>>;
  /** Whether a hold whose owner reads `status` (null: no row) is kept or given back. */
  verdict(status: Status | null): 'keep' | 'void';
  /** What the voided hold's log line says of its owner. */
  describe(ownerKey: string, status: Status | null): Record<string, unknown>;
}

export interface OrphanedHoldsDependencies<H extends OwnedHold, Status> {
  ledger: OwnedHoldsLedger<H>;
  owners: HoldOwners<Status>;
  logger: Logger;
  /** Holds placed more recently than this are not looked at (wall-clock). */
  minAgeMs: number;
  now?: () => Date;
}

export class OrphanedHoldsWalk<H extends OwnedHold, Status> {
  /** Where the next page starts (null: from the first hold). Per process: a restart walks from the start again. */
  private afterHoldId: string | null = null;

  constructor(private readonly deps: OrphanedHoldsDependencies<H, Status>) {}

  /** Looks at one page of at most `pageSize` holds; answers how many it looked at (a short page ends the walk). */
  async execute(pageSize: number): Promise<number> {
    const now = this.deps.now?.() ?? new Date();
    const { holds } = await this.deps.ledger.listOwnedHolds({
      placedBefore: new Date(now.getTime() - this.deps.minAgeMs).toISOString(),
      afterHoldId: this.afterHoldId ?? undefined,
      limit: pageSize,
    });
    this.afterHoldId = holds.length < pageSize ? null : holds[holds.length - 1].holdId;
    const ownerKeys = holds.map((hold) => this.deps.owners.parse(hold.owner)).filter((key) => key !== null);
    const statuses = await this.deps.owners.statuses(ownerKeys);
    for (const hold of holds) await this.reconcile(hold, statuses);
    return holds.length;
  }

  private async reconcile(hold: H, statuses: Map<string, Status>): Promise<void> {
    const { owners, logger } = this.deps;
    const ownerKey = owners.parse(hold.owner);
    if (ownerKey === null) {
      logger.error(`pending hold with an owner ${owners.service} cannot read; left alone`, {
        holdId: hold.holdId,
        owner: hold.owner,
      });
      return;
    }
    const status = statuses.get(ownerKey) ?? null;
    if (owners.verdict(status) === 'keep') return;
    try {
      await this.deps.ledger.voidHold({ holdId: hold.holdId });
      logger.warn('orphaned hold voided', {
        holdId: hold.holdId,
        ...owners.describe(ownerKey, status),
        amount: hold.amount,
        currency: hold.currency,
      });
    } catch (error) {
      // Resolved since it was listed (its flow posted or voided it): nothing is left to give back.
      if (isAppError(error) && error.code === 'LEDGER_HOLD_ALREADY_RESOLVED') return;
      logger.warn('orphaned hold not voided; the next pass retries', { holdId: hold.holdId, error });
    }
  }
}
