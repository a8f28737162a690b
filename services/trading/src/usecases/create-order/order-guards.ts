/**
 * The refusals every order create shares, in the contract's order: platform
 * switches, partner status, KES account readiness, treasury accounts. Reads
 * only; nothing is consumed.
 */
import { AppError } from '@platform/errors';
import { treasuryRefusal } from '../../domain/platform-switches';
import type { PlatformSwitches } from '../../domain/platform-switches';
import type { LedgerPartnerAccounts } from '../../adapters/peers/peers';

const KES_ACCOUNT_REFUSALS: Record<
  string,
  'PARTNER_VA_NOT_ALLOCATED' | 'PARTNER_VA_ACTIVATING' | 'PARTNER_VA_SUSPENDED'
> = {
  not_allocated: 'PARTNER_VA_NOT_ALLOCATED',
  activating: 'PARTNER_VA_ACTIVATING',
  suspended: 'PARTNER_VA_SUSPENDED',
};

/** Kill switch, then swaps: both 503 and both platform-wide. */
export function assertPlatformOpen(current: PlatformSwitches): { treasuryKes: string; treasuryUsdt: string } {
  if (current.kill_switch === 'on') throw new AppError('KILL_SWITCH_ENGAGED');
  if (current.swaps === 'off') throw new AppError('SWAPS_DISABLED');
  return { treasuryKes: current.treasury_kes, treasuryUsdt: current.treasury_usdt };
}

export function assertPartnerActive(profile: { status: string }): void {
  if (profile.status !== 'active') throw new AppError('PARTNER_SUSPENDED');
}

/** Refuses while the partner's KES account cannot be debited or credited. */
export function assertKesAccountReady(accounts: Pick<LedgerPartnerAccounts, 'kesAccountStatus'>): void {
  const refusal = KES_ACCOUNT_REFUSALS[accounts.kesAccountStatus];
  if (refusal) throw new AppError(refusal);
  if (accounts.kesAccountStatus !== 'active')
    throw new Error(`unknown KES account status ${accounts.kesAccountStatus}`);
}

/** Both legs of a trade settle through the treasury: either currency's account being out refuses. */
export function assertTreasuryAvailable(treasury: { treasuryKes: string; treasuryUsdt: string }): void {
  const refusal = treasuryRefusal(treasury.treasuryKes) ?? treasuryRefusal(treasury.treasuryUsdt);
  if (refusal) throw new AppError(refusal);
}
