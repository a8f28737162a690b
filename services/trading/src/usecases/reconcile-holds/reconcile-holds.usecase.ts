/**
 * Gives back trading's orphaned holds (domain/hold-owner.ts says which are
 * orphans). Run by a BatchSweeper in every replica: each call reads one page
 * of trading's own pending holds from the ledger (placed at least `minAgeMs`
 * ago; nearly every hold resolves on its own long before), reads their orders,
 * and voids the holds whose order is gone or final with the ledger's ordinary
 * VoidHold: the same balanced release as every other void, idempotent, so
 * replicas racing on one hold are harmless. Trading asks the ledger; the
 * ledger never asks trading about holds.
 */
import { isAppError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { holdVerdict, orderIdOfHoldOwner } from '../../domain/hold-owner';
import type { OrderStatus } from '../../domain/order';
import type { LedgerApi, LedgerHold } from '../../adapters/peers/peers';

export interface ReconcileHoldsDependencies {
  /** The status of each order that exists (OrdersRepository.statusesOf). */
  orderStatuses: (orderIds: string[]) => Promise<Map<string, OrderStatus>>;
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
    const orderIds = holds.map((hold) => orderIdOfHoldOwner(hold.owner)).filter((orderId) => orderId !== null);
    const statuses = await this.deps.orderStatuses(orderIds);
    for (const hold of holds) await this.reconcile(hold, statuses);
    return holds.length;
  }

  private async reconcile(hold: LedgerHold, statuses: Map<string, OrderStatus>): Promise<void> {
    const orderId = orderIdOfHoldOwner(hold.owner);
    if (orderId === null) {
      this.deps.logger.error('pending hold with an owner trading cannot read; left alone', {
        holdId: hold.holdId,
        owner: hold.owner,
      });
      return;
    }
    const status = statuses.get(orderId) ?? null;
    if (holdVerdict(status) === 'keep') return;
    try {
      await this.deps.ledger.voidHold({ holdId: hold.holdId });
      this.deps.logger.warn('orphaned hold voided', {
        holdId: hold.holdId,
        orderId,
        orderStatus: status ?? 'missing',
        amount: hold.amount,
        currency: hold.currency,
      });
    } catch (error) {
      // Resolved since it was listed (its order posted or voided it): nothing is left to give back.
      if (isAppError(error) && error.code === 'LEDGER_HOLD_ALREADY_RESOLVED') return;
      this.deps.logger.warn('orphaned hold not voided; the next pass retries', { holdId: hold.holdId, error });
    }
  }
}
