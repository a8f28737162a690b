/**
 * The refusals every order create shares, in the contract's order (spec
 * section 7, contract decisions section 4): platform switches, partner status,
 * KES account readiness, treasury accounts. Reads only; nothing is consumed.
 */
import { AppError } from '@platform/errors';
import type { DataSource } from '@platform/persistence';
import { queryRows } from '@platform/persistence';
import type { ledger } from '@platform/proto';
import { treasuryRefusal } from '../domain/platform-switches';
import type { PlatformSwitchesRepository } from '../persistence/platform-switches.repository';
import type { LedgerApi } from './order-support';

export interface PartnerTradingProfile {
  status: string;
  buyMode: 'debit_first' | 'pay_in';
  sellMode: 'deposit' | 'balance';
  perOrderCapKes: string;
}

const KES_ACCOUNT_REFUSALS: Record<string, 'PARTNER_VA_NOT_ALLOCATED' | 'PARTNER_VA_ACTIVATING' | 'PARTNER_VA_SUSPENDED'> = {
  not_allocated: 'PARTNER_VA_NOT_ALLOCATED',
  activating: 'PARTNER_VA_ACTIVATING',
  suspended: 'PARTNER_VA_SUSPENDED',
};

export async function readProfile(dataSource: DataSource, partnerId: string): Promise<PartnerTradingProfile> {
  const [row] = await queryRows<PartnerTradingProfile>(
    dataSource.manager,
    'SELECT status, buy_mode AS "buyMode", sell_mode AS "sellMode", per_order_cap_kes::text AS "perOrderCapKes" FROM partner_profiles WHERE partner_id = $1',
    [partnerId],
  );
  if (!row) throw new AppError('PARTNER_NOT_FOUND');
  return row;
}

/** Kill switch, then swaps: both 503 and both platform-wide. */
export async function assertPlatformOpen(switches: PlatformSwitchesRepository): Promise<{ treasuryKes: string; treasuryUsdt: string }> {
  const current = await switches.read();
  if (current.kill_switch === 'on') throw new AppError('KILL_SWITCH_ENGAGED');
  if (current.swaps === 'off') throw new AppError('SWAPS_DISABLED');
  return { treasuryKes: current.treasury_kes, treasuryUsdt: current.treasury_usdt };
}

export function assertPartnerActive(profile: PartnerTradingProfile): void {
  if (profile.status !== 'active') throw new AppError('PARTNER_SUSPENDED');
}

/** The partner's accounts, refusing while its KES account cannot be debited or credited. */
export async function readyAccounts(ledgerApi: LedgerApi, partnerId: string): Promise<ledger.PartnerAccounts> {
  const accounts = await ledgerApi.getPartnerAccounts({ partnerId });
  const refusal = KES_ACCOUNT_REFUSALS[accounts.kesAccountStatus];
  if (refusal) throw new AppError(refusal);
  if (accounts.kesAccountStatus !== 'active') throw new Error(`unknown KES account status ${accounts.kesAccountStatus}`);
  return accounts;
}

/** Both legs of a trade settle through the treasury: either currency's account being out refuses. */
export function assertTreasuryAvailable(treasury: { treasuryKes: string; treasuryUsdt: string }): void {
  const refusal = treasuryRefusal(treasury.treasuryKes) ?? treasuryRefusal(treasury.treasuryUsdt);
  if (refusal) throw new AppError(refusal);
}
