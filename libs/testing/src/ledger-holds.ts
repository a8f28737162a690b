/**
 * Ledger holds planted by a test as a service would place them (through a
 * ledger client calling as that service, an owner naming one of its rows),
 * for the specs of the services' orphaned-hold reconcilers, and a wait for
 * the reconciler to resolve one.
 */
import { randomUUID } from 'node:crypto';
import { waitFor } from './wait';

const RESOLVED_WAIT_MS = 30_000;

/** The two calls of ledger.v1.LedgerService the planting makes. */
export interface HoldsLedger<H extends { status: string }> {
  placeHold(request: {
    holdId: string;
    accountId: string;
    amount: string;
    metadata: Record<string, string>;
    owner?: string;
  }): Promise<H>;
  getHold(request: { holdId: string }): Promise<H>;
}

export interface PlantedHolds<H> {
  /** A pending hold of `amount` on `accountId` naming `owner` (none: a hold without an owner). */
  place(accountId: string, amount: string, owner?: string): Promise<H>;
  /** The hold once it is no longer pending (posted, voided, expired). */
  resolved(holdId: string): Promise<H>;
}

export function plantedHolds<H extends { status: string }>(ledger: HoldsLedger<H>): PlantedHolds<H> {
  return {
    place: (accountId, amount, owner) =>
      ledger.placeHold({
        holdId: randomUUID(),
        accountId,
        amount,
        metadata: { purpose: 'reconciliation-test' },
        owner,
      }),
    resolved: (holdId) =>
      waitFor(
        async () => {
          const hold = await ledger.getHold({ holdId });
          return hold.status === 'pending' ? undefined : hold;
        },
        { what: `hold ${holdId} resolved`, timeoutMs: RESOLVED_WAIT_MS },
      ),
  };
}
