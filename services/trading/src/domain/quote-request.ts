/**
 * The shape of a quote request: a side and
 * exactly one of kesAmount / usdtAmount, each a strictly positive decimal
 * string at no more than its currency's scale (KES 2, USDT 6), no sign, no
 * exponent. The gateway checks the same shape; the service checks it again
 * because it trusts no caller with money.
 */
import { validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import { parsePositiveAmount } from '@platform/money';
import type { GivenAmount, Side } from './pricing';

export interface QuoteRequestInput {
  partnerId: string;
  side: string;
  /** undefined when absent; an empty string is present and invalid. */
  kesAmount?: string;
  usdtAmount?: string;
}

export interface QuoteRequest {
  partnerId: string;
  side: Side;
  given: GivenAmount;
}

function isSide(value: string): value is Side {
  return value === 'buy' || value === 'sell';
}

/** Throws VALIDATION_FAILED naming every bad field; both or neither amount names both. */
export function parseQuoteRequest(input: QuoteRequestInput): QuoteRequest {
  const bad: string[] = [];
  if (!isUuid(input.partnerId)) bad.push('partnerId');
  if (!isSide(input.side)) bad.push('side');
  const hasKes = input.kesAmount !== undefined;
  const hasUsdt = input.usdtAmount !== undefined;
  const kesAmount = hasKes ? parsePositiveAmount(input.kesAmount, 'KES') : null;
  const usdtAmount = hasUsdt ? parsePositiveAmount(input.usdtAmount, 'USDT') : null;
  if (hasKes === hasUsdt) bad.push('kesAmount', 'usdtAmount');
  else if (hasKes && kesAmount === null) bad.push('kesAmount');
  else if (hasUsdt && usdtAmount === null) bad.push('usdtAmount');
  if (bad.length > 0 || !isSide(input.side)) throw validationFailed(bad);
  const given: GivenAmount | null =
    kesAmount !== null
      ? { currency: 'KES', amount: kesAmount }
      : usdtAmount !== null
        ? { currency: 'USDT', amount: usdtAmount }
        : null;
  if (given === null) throw new Error('parseQuoteRequest: no amount survived validation');
  return { partnerId: input.partnerId, side: input.side, given };
}
