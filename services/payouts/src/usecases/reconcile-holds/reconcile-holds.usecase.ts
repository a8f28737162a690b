/**
 * Gives back payouts' orphaned holds (domain/hold-owner.ts says which are
 * orphans): the ledger walk of @platform/saga's OrphanedHoldsWalk over
 * payouts' own pending holds, reading their owners from the transfers and
 * usdt_sends tables. Payouts asks the ledger; the ledger never asks payouts.
 */
import type { Logger } from '@platform/logger';
import type { DataSource } from '@platform/persistence';
import { HoldOwners, OrphanedHoldsWalk } from '@platform/saga';
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

/** Payouts' holds name a transfer or a USDT send; the owner string itself is the key. */
function payoutsHoldOwners(deps: ReconcileHoldsDependencies): HoldOwners<OwnerStatus> {
  return {
    service: 'payouts',
    parse: (owner) => (parseHoldOwner(owner) ? owner! : null),
    statuses: async (owners) => {
      const parsed = owners.map(parseHoldOwner).filter((owner) => owner !== null);
      const ids = (kind: HoldOwnerKind) => parsed.filter((owner) => owner.kind === kind).map((owner) => owner.id);
      const { manager } = deps.dataSource;
      const [transfers, sends] = await Promise.all([
        deps.transfers.statusesOf(manager, ids('transfer')),
        deps.sends.statusesOf(manager, ids('usdt_send')),
      ]);
      const statuses = new Map<string, OwnerStatus>();
      for (const [id, status] of transfers) statuses.set(holdOwner('transfer', id), status);
      for (const [id, status] of sends) statuses.set(holdOwner('usdt_send', id), status);
      return statuses;
    },
    verdict: holdVerdict,
    describe: (owner, status) => ({ owner, ownerStatus: status ?? 'missing' }),
  };
}

export class ReconcileHoldsUseCase extends OrphanedHoldsWalk<LedgerHold, OwnerStatus> {
  constructor(deps: ReconcileHoldsDependencies) {
    const { ledger, logger, minAgeMs, now } = deps;
    super({ ledger, logger, minAgeMs, now, owners: payoutsHoldOwners(deps) });
  }
}
