/**
 * Money is a decimal string on the wire and a big.js value inside; never a JS
 * number. Parsing is strict: plain digits, an optional fraction of at most the
 * currency's scale, no sign, no exponent, no leading zeros, bounded length.
 * Rounding helpers are named for their direction and refuse negative inputs,
 * where floor and "toward zero" would differ.
 */
import Big from 'big.js';

export { Big };

export type Currency = 'KES' | 'USDT' | 'USD';

/** Decimal places each currency carries on the wire. */
export const CURRENCY_SCALE: Readonly<Record<Currency, number>> = { KES: 2, USDT: 6, USD: 2 };
export const RATE_SCALE = 4;
/** Integer digits accepted in any amount; bounds every computation (1e15 KES is far beyond any cap). */
export const AMOUNT_INTEGER_DIGITS_MAX = 15;

export function isCurrency(value: unknown): value is Currency {
  return value === 'KES' || value === 'USDT' || value === 'USD';
}

/** The strict decimal shape with at most `scale` decimals (the API reference states the same pattern). */
export function decimalPattern(scale: number): RegExp {
  const fraction = scale > 0 ? `(\\.\\d{1,${scale}})?` : '';
  return new RegExp(`^(0|[1-9]\\d{0,${AMOUNT_INTEGER_DIGITS_MAX - 1}})${fraction}$`);
}

const patterns = new Map<number, RegExp>();
function patternFor(scale: number): RegExp {
  let pattern = patterns.get(scale);
  if (!pattern) {
    pattern = decimalPattern(scale);
    patterns.set(scale, pattern);
  }
  return pattern;
}

/** Parses a non-negative decimal string with at most `scale` decimals; null when malformed. */
export function parseDecimal(value: unknown, scale: number): Big | null {
  if (typeof value !== 'string' || !patternFor(scale).test(value)) return null;
  return new Big(value);
}

/** Parses an amount of `currency`; null when malformed or carrying too many decimals. */
export function parseAmount(value: unknown, currency: Currency): Big | null {
  return parseDecimal(value, CURRENCY_SCALE[currency]);
}

/** Parses an amount that must be strictly positive. */
export function parsePositiveAmount(value: unknown, currency: Currency): Big | null {
  const amount = parseAmount(value, currency);
  return amount && amount.gt(0) ? amount : null;
}

function assertNonNegative(value: Big, what: string): void {
  if (value.lt(0)) throw new RangeError(`${what}: negative value ${value.toString()}`);
}

/** Rounds toward +infinity at `scale` decimals. Non-negative inputs only. */
export function roundUp(value: Big, scale: number): Big {
  assertNonNegative(value, 'roundUp');
  return value.round(scale, Big.roundUp);
}

/** Rounds toward zero (= floor for non-negative values) at `scale` decimals. */
export function roundDown(value: Big, scale: number): Big {
  assertNonNegative(value, 'roundDown');
  return value.round(scale, Big.roundDown);
}

/** Formats at exactly the currency's scale ("1500" KES -> "1500.00"). Exact; no float involved. */
export function formatAmount(value: Big, currency: Currency): string {
  return formatDecimal(value, CURRENCY_SCALE[currency]);
}

/** Formats at exactly `scale` decimals; refuses a value that would need rounding. */
export function formatDecimal(value: Big, scale: number): string {
  if (!value.round(scale, Big.roundDown).eq(value)) {
    throw new RangeError(`formatDecimal: ${value.toString()} has more than ${scale} decimals`);
  }
  return value.toFixed(scale);
}

/** Integer minor units (cents) of a 2-decimal amount, as a bigint. */
export function toMinorUnits(value: Big, currency: Currency): bigint {
  const scale = CURRENCY_SCALE[currency];
  return BigInt(formatDecimal(value, scale).replace('.', ''));
}

export function fromMinorUnits(minor: bigint, currency: Currency): Big {
  return new Big(minor.toString()).div(new Big(10).pow(CURRENCY_SCALE[currency]));
}

export function sum(values: Big[]): Big {
  return values.reduce((total, value) => total.plus(value), new Big(0));
}

export function min(a: Big, b: Big): Big {
  return a.lte(b) ? a : b;
}
