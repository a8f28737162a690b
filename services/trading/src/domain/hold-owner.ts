/**
 * Trading's ledger holds and who owns them: every hold names its order
 * ("trading:order:<order id>"; hold id = order id), so trading can find the
 * holds nothing will ever resolve and give them back.
 *
 * Orphans come from a step that outlives its lease: a debit-first buy's create
 * still waiting on its hold while the scheduler, its reconcile delay passed,
 * finds the debit never made and rejects the order; the slow hold then lands
 * on a rejected order. An order row is always written before its hold is
 * placed, and every path to a final status (settled, rejected, expired)
 * resolves the hold first (posted on settlement, voided on rejection), so a
 * pending hold whose order is final or gone has no one left to resolve it.
 * Every other status still needs its hold, for as long as it takes: a
 * funded sell waits on its proceeds payout and posts the hold when paid. Time
 * alone never voids one.
 */
import { isUuid } from '@platform/ids';
import { OrderStatus, TERMINAL_STATUSES } from './order';

export type HoldVerdict = 'keep' | 'void';

const PREFIX = 'trading:order:';

export function orderHoldOwner(orderId: string): string {
  return `${PREFIX}${orderId}`;
}

/** The order a hold names; null for anything else (no owner, another shape). */
export function orderIdOfHoldOwner(owner: string | undefined): string | null {
  if (!owner?.startsWith(PREFIX)) return null;
  const orderId = owner.slice(PREFIX.length);
  return isUuid(orderId) ? orderId : null;
}

/** What to do with a pending hold whose order reads `status` (null: the order no longer exists). */
export function holdVerdict(status: OrderStatus | null): HoldVerdict {
  return status === null || TERMINAL_STATUSES.includes(status) ? 'void' : 'keep';
}
