/**
 * Payouts' ledger holds and who owns them: every hold names its transfer or
 * USDT send ("payouts:transfer:<id>", "payouts:usdt_send:<id>"), so payouts
 * can find the holds nothing will ever resolve and give them back.
 *
 * Orphans come from a create that outlives its lease: the scheduler undoes it
 * (voids the hold, which is not there yet, and deletes the row), then the slow
 * create's hold lands. A row is always written before its hold is placed, and
 * every path to a final status resolves the hold first (posted on settled,
 * voided on failed or expired), so a pending hold whose row is gone or final
 * has no one left to resolve it. Any other status still needs its hold, for
 * as long as it takes: a confirmed transfer waits on the bank, and its hold is
 * posted when the bank answers. Time alone never voids one.
 */
import { isUuid } from '@platform/ids';
import { type ConfirmableStatus, isFinal } from './confirmable-status';

export type HoldOwnerKind = 'transfer' | 'usdt_send';
/** The statuses transfers and USDT sends share. */
export type OwnerStatus = ConfirmableStatus;
export type HoldVerdict = 'keep' | 'void';

const SERVICE = 'payouts';
const KINDS: readonly HoldOwnerKind[] = ['transfer', 'usdt_send'];

export function holdOwner(kind: HoldOwnerKind, id: string): string {
  return `${SERVICE}:${kind}:${id}`;
}

/** The transfer or send a hold names; null for anything else (no owner, another shape). */
export function parseHoldOwner(owner: string | undefined): { kind: HoldOwnerKind; id: string } | null {
  const [service, kind, id, ...rest] = (owner ?? '').split(':');
  if (service !== SERVICE || rest.length > 0 || !KINDS.includes(kind as HoldOwnerKind) || !isUuid(id)) return null;
  return { kind: kind as HoldOwnerKind, id };
}

/** What to do with a pending hold whose owner reads `status` (null: the row no longer exists). */
export function holdVerdict(status: OwnerStatus | null): HoldVerdict {
  return status === null || isFinal(status) ? 'void' : 'keep';
}
