import { validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import type { DataSource } from '@platform/persistence';
import { ownerPrefix } from '../../domain/hold-owner';
import type { HoldRecord, HoldsRepository } from '../../persistence/holds.repository';

/** The largest page one call returns. */
export const OWNED_HOLDS_LIMIT_MAX = 500;

export interface ListOwnedHoldsCommand {
  /** The identity asking: only holds whose owner names it are listed. */
  caller: string;
  placedBefore: string;
  afterHoldId: string | null;
  limit: number;
}

/**
 * An owner's pending holds, a page at a time, for the owner's own
 * reconciliation: the owner decides which are orphans and voids them through
 * VoidHold like any other void. The ledger only lists: it never asks an owner
 * anything, so calls between the services keep pointing one way.
 */
export class ListOwnedHoldsUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly holds: HoldsRepository,
  ) {}

  async execute(command: ListOwnedHoldsCommand): Promise<HoldRecord[]> {
    const bad: string[] = [];
    const placedBeforeMs = Date.parse(command.placedBefore);
    if (Number.isNaN(placedBeforeMs)) bad.push('placedBefore');
    if (command.afterHoldId !== null && !isUuid(command.afterHoldId)) bad.push('afterHoldId');
    if (!Number.isInteger(command.limit) || command.limit < 1 || command.limit > OWNED_HOLDS_LIMIT_MAX)
      bad.push('limit');
    if (bad.length > 0) throw validationFailed(bad);
    return this.holds.listOwnedPending(this.dataSource, {
      ownerPrefix: ownerPrefix(command.caller),
      placedBefore: new Date(placedBeforeMs),
      afterHoldId: command.afterHoldId,
      limit: command.limit,
    });
  }
}
