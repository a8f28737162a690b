/**
 * A partner's fee schedule: percentage (basis points), flat part and optional
 * cap, all KES. The same rules guard two doors:
 * - on write (ConfigurePartner) a bad field is the operator's mistake:
 *   VALIDATION_FAILED naming each field;
 * - on read (every quote) a bad stored value is the service's fault:
 *   FEE_PRICING_INVALID (503), and no quote is issued. The stored columns are
 *   deliberately loose (text, unchecked integer) so that such a value is
 *   refused here, visibly, rather than coerced somewhere on the way.
 *
 * Rules: bps an integer 0..10000; flat >= 0 with at most 2 decimals; cap null
 * (no cap) or >= 0 with at most 2 decimals; when a cap is present it must be
 * >= flat. A cap below the flat part would make the fee always equal the cap,
 * silently turning the flat fee into a lie, so it is refused as a
 * misconfiguration rather than applied.
 */
import { AppError } from '@platform/errors';
import { Big, formatAmount, parseAmount } from '@platform/money';

export const FEE_SCHEDULE_BPS_MAX = 10_000;

export interface FeeSchedule {
  percentBps: number;
  flatKes: Big;
  /** null: no cap. */
  capKes: Big | null;
}

/** Raw values as they arrive (from the wire or from a row); nothing assumed about them. */
export interface RawFeeSchedule {
  feeBps: unknown;
  feeFlatKes: unknown;
  /** null or undefined: no cap. */
  feeCapKes: unknown;
}

export type FeeScheduleField = 'feeBps' | 'feeFlatKes' | 'feeCapKes';

export type FeeScheduleCheck =
  { schedule: FeeSchedule; badFields: [] } | { schedule: null; badFields: FeeScheduleField[] };

function parseBps(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= FEE_SCHEDULE_BPS_MAX
    ? value
    : null;
}

/** Checks every rule and names each field that breaks one. */
export function checkFeeSchedule(raw: RawFeeSchedule): FeeScheduleCheck {
  const percentBps = parseBps(raw.feeBps);
  const flatKes = parseAmount(raw.feeFlatKes, 'KES');
  const noCap = raw.feeCapKes === null || raw.feeCapKes === undefined;
  const capKes = noCap ? null : parseAmount(raw.feeCapKes, 'KES');
  const badFields: FeeScheduleField[] = [];
  if (percentBps === null) badFields.push('feeBps');
  if (flatKes === null) badFields.push('feeFlatKes');
  if (!noCap && capKes === null) badFields.push('feeCapKes');
  if (flatKes !== null && capKes !== null && capKes.lt(flatKes)) badFields.push('feeCapKes');
  if (badFields.length > 0 || percentBps === null || flatKes === null) return { schedule: null, badFields };
  return { schedule: { percentBps, flatKes, capKes }, badFields: [] };
}

/**
 * The schedule stored for a partner, ready to price with, or why not. A
 * missing profile and any invalid stored value refuse with FEE_PRICING_INVALID:
 * the partner did nothing wrong, the service cannot price for them until an
 * operator fixes the profile. `problems` is for the service's own log only.
 */
export function storedFeeSchedule(
  stored: RawFeeSchedule | null,
): { schedule: FeeSchedule } | { refusal: AppError; problems: string[] } {
  if (stored === null) return { refusal: new AppError('FEE_PRICING_INVALID'), problems: ['no trading profile'] };
  const check = checkFeeSchedule(stored);
  if (check.schedule === null)
    return {
      refusal: new AppError('FEE_PRICING_INVALID'),
      problems: check.badFields.map((field) => `${field} invalid`),
    };
  return { schedule: check.schedule };
}

/** Canonical stored text of a checked schedule ("10" becomes "10.00"). */
export function formatFeeSchedule(schedule: FeeSchedule): {
  feeBps: number;
  feeFlatKes: string;
  feeCapKes: string | null;
} {
  return {
    feeBps: schedule.percentBps,
    feeFlatKes: formatAmount(schedule.flatKes, 'KES'),
    feeCapKes: schedule.capKes === null ? null : formatAmount(schedule.capKes, 'KES'),
  };
}
