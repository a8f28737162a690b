/**
 * Amounts as the ledger's numeric(30, 6) columns give them as text
 * ("-125.000000"), put at a currency's scale without parsing a decimal: exactly
 * what formatAmount(new Big(text), currency) answers, for a fraction of its cost
 * on a page of a hundred lines. Anything not in that stored shape goes through
 * formatAmount itself, so the answer and its refusal of a value that would need
 * rounding never differ.
 */
import { Big, CURRENCY_SCALE, formatAmount, type Currency } from '@platform/money';

/** The scale of every amount column of the ledger (numeric(30, 6)). */
export const STORED_SCALE = 6;
const STORED_SHAPE = /^-?\d+\.\d{6}$/;

export function storedAmountAtScale(text: string, currency: Currency): string {
  const dropped = STORED_SCALE - CURRENCY_SCALE[currency];
  if (STORED_SHAPE.test(text) && dropped >= 0 && /^0*$/.test(text.slice(text.length - dropped)))
    return text.slice(0, text.length - dropped);
  return formatAmount(new Big(text), currency);
}
