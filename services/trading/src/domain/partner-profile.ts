/**
 * A partner's trading profile: status, funding modes, fee schedule and caps,
 * set by operators.
 *
 * ConfigurePartner replaces the whole profile. The operator tool always sends
 * a complete profile (it applies the defaults below itself), so every field is
 * required and checked strictly here: an empty string is an error, never "use
 * the default". The only optional field is the fee cap, where absence means no
 * cap. fee_bps 0 and flat "0.00" are legitimate values (no percentage, no
 * flat part).
 */
import { validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import { Big, formatAmount, parsePositiveAmount } from '@platform/money';
import { checkFeeSchedule, FeeSchedule, formatFeeSchedule } from './fee-schedule';

export const PARTNER_STATUSES = ['active', 'suspended'] as const;
export const BUY_MODES = ['debit_first', 'pay_in'] as const;
export const SELL_MODES = ['deposit', 'balance'] as const;

export type PartnerStatus = (typeof PARTNER_STATUSES)[number];
export type BuyMode = (typeof BUY_MODES)[number];
export type SellMode = (typeof SELL_MODES)[number];

/** The operator tool's defaults for a new partner, documented in the README. */
export const PROFILE_DEFAULTS = Object.freeze({
  status: 'active',
  buyMode: 'debit_first',
  sellMode: 'deposit',
  feeBps: 50,
  feeFlatKes: '0.00',
  feeCapKes: null,
  perOrderCapKes: '1000000.00',
  dailyCapKes: '5000000.00',
});

export interface PartnerProfile {
  partnerId: string;
  status: PartnerStatus;
  buyMode: BuyMode;
  sellMode: SellMode;
  fee: FeeSchedule;
  perOrderCapKes: Big;
  dailyCapKes: Big;
}

/** What ConfigurePartner receives, before any check. */
export interface PartnerProfileInput {
  partnerId: string;
  status: string;
  buyMode: string;
  sellMode: string;
  feeBps: number;
  feeFlatKes: string;
  feeCapKes?: string | null;
  perOrderCapKes: string;
  dailyCapKes: string;
}

function oneOf<T extends string>(values: readonly T[], value: string): value is T {
  return (values as readonly string[]).includes(value);
}

/**
 * Checks a complete profile; throws VALIDATION_FAILED naming every bad field.
 * Caps are KES amounts > 0 with at most 2 decimals. The daily cap is not
 * required to be at least the per-order cap: a small daily cap alone is a
 * legitimate way to limit a partner.
 */
export function parsePartnerProfile(input: PartnerProfileInput): PartnerProfile {
  const fee = checkFeeSchedule({ feeBps: input.feeBps, feeFlatKes: input.feeFlatKes, feeCapKes: input.feeCapKes });
  const perOrderCapKes = parsePositiveAmount(input.perOrderCapKes, 'KES');
  const dailyCapKes = parsePositiveAmount(input.dailyCapKes, 'KES');
  const bad: string[] = [];
  if (!isUuid(input.partnerId)) bad.push('partnerId');
  if (!oneOf(PARTNER_STATUSES, input.status)) bad.push('status');
  if (!oneOf(BUY_MODES, input.buyMode)) bad.push('buyMode');
  if (!oneOf(SELL_MODES, input.sellMode)) bad.push('sellMode');
  bad.push(...fee.badFields);
  if (perOrderCapKes === null) bad.push('perOrderCapKes');
  if (dailyCapKes === null) bad.push('dailyCapKes');
  if (bad.length > 0 || fee.schedule === null || perOrderCapKes === null || dailyCapKes === null)
    throw validationFailed(bad);
  return {
    partnerId: input.partnerId,
    status: input.status as PartnerStatus,
    buyMode: input.buyMode as BuyMode,
    sellMode: input.sellMode as SellMode,
    fee: fee.schedule,
    perOrderCapKes,
    dailyCapKes,
  };
}

/** The profile as stored and returned: amounts at exact scale, cap null when none. */
export function formatPartnerProfile(profile: PartnerProfile) {
  return {
    partnerId: profile.partnerId,
    status: profile.status,
    buyMode: profile.buyMode,
    sellMode: profile.sellMode,
    ...formatFeeSchedule(profile.fee),
    perOrderCapKes: formatAmount(profile.perOrderCapKes, 'KES'),
    dailyCapKes: formatAmount(profile.dailyCapKes, 'KES'),
  };
}

export type FormattedPartnerProfile = ReturnType<typeof formatPartnerProfile>;
