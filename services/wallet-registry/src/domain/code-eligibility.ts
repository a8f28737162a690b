/**
 * Who may receive a partner's codes (wallet approval codes here, confirmation
 * codes through payouts), and which administrator changes keep that safe.
 *
 * A credential alone can add and remove administrators, and the codes are the
 * second factor that a credential alone must not reach. So:
 * - a new administrator waits (the waiting period) before it may receive
 *   codes, while every administrator is told of it and can remove it; the
 *   partner's first administrator does not wait, as nobody could be told;
 * - the last administrator who may receive codes cannot be removed, so a
 *   partner is never left without a recipient by accident, and whoever removes
 *   everyone else must first wait out the new administrator's waiting period
 *   in full view of the old ones.
 * Pure functions; the caller passes the clock and the partner's active
 * administrators, read under the partner's lock where a change follows.
 */

export interface CodeEligibility {
  adminId: string;
  /** When the administrator was registered: the earliest eligible one receives the codes. */
  createdAt: Date;
  /** From this moment on the administrator may receive codes. */
  receivesCodesFrom: Date;
}

/**
 * When an administrator registered at `registeredAt` may start receiving
 * codes: at once when the partner has no active administrator (the first one),
 * after the waiting period otherwise.
 */
export function receivesCodesFrom(registeredAt: Date, activeAdministrators: number, waitingPeriodMs: number): Date {
  if (!Number.isSafeInteger(waitingPeriodMs) || waitingPeriodMs <= 0)
    throw new Error(`waiting period must be a positive integer, got ${waitingPeriodMs}`);
  if (activeAdministrators === 0) return registeredAt;
  return new Date(registeredAt.getTime() + waitingPeriodMs);
}

export function mayReceiveCodes(admin: CodeEligibility, now: Date): boolean {
  return admin.receivesCodesFrom.getTime() <= now.getTime();
}

/** Earliest registration first, ties by id: the one order every rule here uses. */
function registeredBefore(a: CodeEligibility, b: CodeEligibility): boolean {
  const difference = a.createdAt.getTime() - b.createdAt.getTime();
  return difference < 0 || (difference === 0 && a.adminId < b.adminId);
}

/**
 * The code recipient among the partner's active administrators: the
 * earliest-registered one whose waiting period has ended; null when none may
 * receive codes (the caller answers NO_ADMINISTRATOR_REGISTERED).
 */
export function chooseCodeRecipient<T extends CodeEligibility>(active: readonly T[], now: Date): T | null {
  let chosen: T | null = null;
  for (const admin of active) {
    if (mayReceiveCodes(admin, now) && (chosen === null || registeredBefore(admin, chosen))) chosen = admin;
  }
  return chosen;
}

export type RemovalRefusal = 'ADMIN_NOT_FOUND' | 'ADMIN_LAST_CODE_RECIPIENT';

/**
 * Why `adminId` may not be removed from the partner's `active`
 * administrators, or null when it may. An administrator still waiting can
 * always be removed (that is how a partner throws out one it did not add);
 * one who may receive codes only while another who may remains.
 */
export function removalRefusal(active: readonly CodeEligibility[], adminId: string, now: Date): RemovalRefusal | null {
  const target = active.find((admin) => admin.adminId === adminId);
  if (!target) return 'ADMIN_NOT_FOUND';
  if (!mayReceiveCodes(target, now)) return null;
  const anotherRecipient = active.some((admin) => admin.adminId !== adminId && mayReceiveCodes(admin, now));
  return anotherRecipient ? null : 'ADMIN_LAST_CODE_RECIPIENT';
}
