/**
 * The statuses transfers and USDT sends share: the ones partners see, as the
 * partner contract states them, and before them `creating`, a row claimed
 * while its create still runs its checks (never shown, never listed).
 */
import {
  CONFIRMABLE_STATUSES,
  type ConfirmableStatus as PartnerStatus,
} from '@platform/openapi/dist/contract/statuses';

/** The statuses a partner may see and list by. */
export type VisibleStatus = PartnerStatus;
export const VISIBLE_STATUSES: readonly VisibleStatus[] = CONFIRMABLE_STATUSES;

export type ConfirmableStatus = 'creating' | VisibleStatus;

/** Where a transfer or send ends: nothing more happens to it (its hold is already posted or voided). */
const FINAL_STATUSES: ReadonlySet<ConfirmableStatus> = new Set(['settled', 'failed', 'expired']);

export function isFinal(status: ConfirmableStatus): boolean {
  return FINAL_STATUSES.has(status);
}
