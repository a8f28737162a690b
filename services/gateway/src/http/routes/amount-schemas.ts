/** zod pieces for partner-sent money: strict decimal strings (never JSON numbers), checked with @platform/money. */
import { Currency, formatAmount, formatDecimal, parseDecimal, parsePositiveAmount, RATE_SCALE } from '@platform/money';
import { z } from 'zod';

/** A positive amount of `currency` with at most its scale of decimals; normalised to exactly that scale. */
export function positiveAmount(currency: Currency) {
  return z.string()
    .refine((value) => parsePositiveAmount(value, currency) !== null, `a positive ${currency} amount`)
    .transform((value) => formatAmount(parsePositiveAmount(value, currency)!, currency));
}

/** A positive rate with at most 4 decimals; normalised to exactly 4. */
export function positiveRate() {
  const parse = (value: string) => {
    const rate = parseDecimal(value, RATE_SCALE);
    return rate && rate.gt(0) ? rate : null;
  };
  return z.string()
    .refine((value) => parse(value) !== null, 'a positive rate with at most 4 decimals')
    .transform((value) => formatDecimal(parse(value)!, RATE_SCALE));
}
