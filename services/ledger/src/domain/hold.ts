/**
 * Holds: two-phase transfers. A pending hold raises its account's `held`, so
 * available (posted − held) falls while posted is unchanged; it resolves exactly
 * once, as posted (in full or in part), voided, or expired.
 */
import { Big } from '@platform/money';

export const HOLD_STATUSES = ['pending', 'posted', 'voided', 'expired'] as const;
export type HoldStatus = (typeof HOLD_STATUSES)[number];

/** Whether a hold of `amount` fits the account's floor. Accounts allowed to go negative always fit. */
export function holdFits(posted: Big, held: Big, amount: Big, allowNegative: boolean): boolean {
  return allowNegative || posted.minus(held).gte(amount);
}

/** A post takes 0 < postAmount ≤ amount; the remainder returns to available. */
export function isValidPostAmount(postAmount: Big, holdAmount: Big): boolean {
  return postAmount.gt(0) && postAmount.lte(holdAmount);
}
