/**
 * The partner wire conventions (amounts as strings, times as ISO 8601 UTC, …), asserted on everything the gateway sends
 * back: ids UUID-shaped, timestamps ISO 8601 UTC with milliseconds, money a
 * decimal string with exactly its currency's scale. Services format their own
 * values; a value that breaks the convention is a bug upstream, so it stops the
 * response (500) rather than reach a partner.
 */
import { isUuid } from '@platform/ids';
import { Currency, CURRENCY_SCALE, isCurrency, RATE_SCALE } from '@platform/money';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** One pattern per scale, built once: every amount of every answer is checked against one. */
const EXACT_SCALE_PATTERNS = new Map<number, RegExp>();

function exactScale(scale: number): RegExp {
  let pattern = EXACT_SCALE_PATTERNS.get(scale);
  if (pattern === undefined) {
    pattern = new RegExp(`^(0|[1-9]\\d*)\\.\\d{${scale}}$`);
    EXACT_SCALE_PATTERNS.set(scale, pattern);
  }
  return pattern;
}

export class WireFormatError extends Error {
  constructor(field: string, expected: string) {
    super(`upstream value of ${field} is not ${expected}`);
    this.name = 'WireFormatError';
  }
}

export function wireUuid(value: unknown, field: string): string {
  if (!isUuid(value)) throw new WireFormatError(field, 'a UUID');
  return value;
}

export function wireTimestamp(value: unknown, field: string): string {
  if (typeof value !== 'string' || !TIMESTAMP.test(value) || Number.isNaN(Date.parse(value))) {
    throw new WireFormatError(field, 'an ISO 8601 UTC timestamp with milliseconds');
  }
  return value;
}

export function wireDecimal(value: unknown, scale: number, field: string): string {
  if (typeof value !== 'string' || !exactScale(scale).test(value))
    throw new WireFormatError(field, `a decimal string with ${scale} decimals`);
  return value;
}

export function wireAmount(value: unknown, currency: Currency, field: string): string {
  return wireDecimal(value, CURRENCY_SCALE[currency], field);
}

export function wireRate(value: unknown, field: string): string {
  return wireDecimal(value, RATE_SCALE, field);
}

export function wireCurrency(value: unknown, field: string): Currency {
  if (!isCurrency(value)) throw new WireFormatError(field, 'a currency code');
  return value;
}

export function wireNonNegativeInteger(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw new WireFormatError(field, 'a non-negative integer');
  return value;
}

export function wireNonEmptyString(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0) throw new WireFormatError(field, 'a non-empty string');
  return value;
}
