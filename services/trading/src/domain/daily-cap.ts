/**
 * The shared rolling 24-hour cap: orders,
 * transfers and committed USDT sends of one partner, valued in KES, may not
 * exceed the partner's daily_cap_kes over any 24 hours (reaching it exactly
 * passes). Pure rules only; the check itself is the database's, under the
 * partner's window lock (cap_reserve, test/cap-window.int.spec.ts).
 */
import { ErrorCode, validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import { Big, formatAmount, parsePositiveAmount, roundUp } from '@platform/money';

export const CAP_SOURCES = ['order', 'transfer', 'usdt_send'] as const;
export type CapSource = (typeof CAP_SOURCES)[number];

/** The cap window: a usage counts for this long after the end of the minute it was reserved in (cap-window.ts). */
export const DAILY_CAP_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface ReserveDailyCapInput {
  usageId: string;
  partnerId: string;
  source: string;
  amountKes?: string;
  amountUsdt?: string;
}

export interface ReserveDailyCapRequest {
  usageId: string;
  partnerId: string;
  source: CapSource;
  given: { currency: 'KES' | 'USDT'; amount: Big };
}

/** Checks the shape; throws VALIDATION_FAILED naming every bad field. */
export function parseReserveDailyCap(input: ReserveDailyCapInput): ReserveDailyCapRequest {
  const bad: string[] = [];
  if (!isUuid(input.usageId)) bad.push('usageId');
  if (!isUuid(input.partnerId)) bad.push('partnerId');
  if (!(CAP_SOURCES as readonly string[]).includes(input.source)) bad.push('source');
  const hasKes = input.amountKes !== undefined;
  const hasUsdt = input.amountUsdt !== undefined;
  let given: ReserveDailyCapRequest['given'] | null = null;
  if (hasKes === hasUsdt) {
    bad.push('amountKes', 'amountUsdt');
  } else {
    const currency = hasKes ? 'KES' : 'USDT';
    const amount = parsePositiveAmount(hasKes ? input.amountKes : input.amountUsdt, currency);
    if (amount === null) bad.push(hasKes ? 'amountKes' : 'amountUsdt');
    else given = { currency, amount };
  }
  if (bad.length > 0 || given === null) throw validationFailed(bad);
  return { usageId: input.usageId, partnerId: input.partnerId, source: input.source as CapSource, given };
}

/** USDT valued in KES at the bid (what the service would pay for it), rounded up to the cent so the cap never under-counts. */
export function usdtToCapKes(amountUsdt: Big, bid: Big): Big {
  return roundUp(amountUsdt.times(bid), 2);
}

/** The refusal a breach gets: orders have their own code in the contract. */
export function capExceededCode(source: CapSource): ErrorCode {
  return source === 'order' ? 'ORDER_EXCEEDS_DAILY_CAP' : 'DAILY_CAP_EXCEEDED';
}

export function remainingKes(dailyCapKes: Big, usedKes: Big): string {
  const remaining = dailyCapKes.minus(usedKes);
  return formatAmount(remaining.lt(0) ? new Big(0) : remaining, 'KES');
}
