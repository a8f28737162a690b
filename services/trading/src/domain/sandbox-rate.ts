/**
 * A sandbox rate pin (POST /v1/sandbox/rates): bid and ask in KES per USDT,
 * at most 4 decimals (the quote rate's scale, so a pinned rate is quoted
 * exactly as given), bid > 0, ask >= bid, neither above RATE_KES_MAX.
 */
import { validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import { Big, parseDecimal, RATE_SCALE } from '@platform/money';
import { RATE_KES_MAX } from './pricing';

export interface SandboxRatePin {
  partnerId: string;
  bid: Big;
  ask: Big;
  halted: boolean;
}

function parseRate(value: string): Big | null {
  const rate = parseDecimal(value, RATE_SCALE);
  return rate !== null && rate.gt(0) && rate.lte(RATE_KES_MAX) ? rate : null;
}

/** Throws VALIDATION_FAILED naming every bad field; an ask below the bid names `ask`. */
export function parseSandboxRatePin(input: {
  partnerId: string;
  bid: string;
  ask: string;
  halted: boolean;
}): SandboxRatePin {
  const bid = parseRate(input.bid);
  const ask = parseRate(input.ask);
  const bad: string[] = [];
  if (!isUuid(input.partnerId)) bad.push('partnerId');
  if (bid === null) bad.push('bid');
  if (ask === null || (bid !== null && ask.lt(bid))) bad.push('ask');
  if (bad.length > 0 || bid === null || ask === null) throw validationFailed(bad);
  return { partnerId: input.partnerId, bid, ask, halted: input.halted };
}
