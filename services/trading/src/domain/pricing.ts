/**
 * Quote pricing. Every function here is
 * pure and exact: big.js only, explicit rounding directions, every result
 * checked against the rule it implements before it is returned.
 *
 * Rounding always favours the service:
 *   rate       buy: ask rounded UP to 4 dp          sell: bid rounded DOWN to 4 dp
 *   buy by KES     usdtAmount = floor6(kesAmount / rate)
 *   buy by USDT    kesAmount  = ceil2(usdtAmount × rate)
 *   sell by USDT   kesAmount  = floor2(usdtAmount × rate)
 *   sell by KES    usdtAmount = ceil6(kesAmount / rate)
 *   fee            min(cap, ceil2(kesAmount × bps / 10000) + flat); no cap when null
 *   total          buy: kesAmount + fee             sell: kesAmount − fee
 * Every amount is computed from the 4-decimal rate, never from the raw feed.
 *
 * Decisions the contract leaves open:
 * - When the given amount prices the other leg to zero (a sell of 0.000001 USDT
 *   is worth floor2(0.000128…) = 0.00 KES), the quote is refused with 400
 *   VALIDATION_FAILED naming the field the partner gave, errorCode
 *   AMOUNT_TOO_SMALL_TO_PRICE: nothing can be traded for nothing.
 * - One quote is bounded on both legs (KES_AMOUNT_MAX, USDT_AMOUNT_MAX); above
 *   either, 400 VALIDATION_FAILED naming the given field, errorCode
 *   AMOUNT_ABOVE_QUOTE_MAXIMUM.
 * - A sell whose fee equals or exceeds its principal is 422 FEE_EXCEEDS_PROCEEDS.
 */
import { AppError } from '@platform/errors';
import { Big, CURRENCY_SCALE, formatAmount, formatDecimal, min, RATE_SCALE, roundDown, roundUp } from '@platform/money';
import type { FeeSchedule } from './fee-schedule';

export type Side = 'buy' | 'sell';

/** Which leg the partner fixed; the other is computed. */
export type GivenAmount = { currency: 'KES'; amount: Big } | { currency: 'USDT'; amount: Big };

/** Upper bounds on one quote. 1e12 KES is orders of magnitude above any partner cap. */
export const KES_AMOUNT_MAX = new Big('1000000000000.00');
export const USDT_AMOUNT_MAX = new Big('10000000000.000000');
/** A rate outside (0, RATE_KES_MAX] is not a USDT/KES price; treated as no live rate. */
export const RATE_KES_MAX = new Big('1000000.0000');

export const BPS_PER_UNIT = 10_000;
export const FEE_BPS_MAX = 10_000;

const KES_SCALE = CURRENCY_SCALE.KES;
const USDT_SCALE = CURRENCY_SCALE.USDT;
const KES_UNIT = new Big('0.01');
const USDT_UNIT = new Big('0.000001');

/**
 * Our own big.js constructor for division: 40 decimal places, truncating. The
 * division result is then rounded to the currency scale with an explicit mode,
 * and each quotient is verified by multiplication (which big.js does exactly),
 * so correctness never rests on the precision or on a default rounding mode.
 * A separate constructor keeps these settings away from every other user of big.js.
 */
const Decimal = Big();
Decimal.DP = 40;
Decimal.RM = Big.roundDown;

function divide(dividend: Big, divisor: Big): Big {
  return new Decimal(dividend).div(divisor);
}

/**
 * The quotient truncated at the USDT scale, for a floor: for positive operands, truncating at 6
 * decimals is exactly flooring the 40-place quotient at 6 (the places past the 6th are dropped
 * either way), and big.js's long division costs a step per place it writes. Checked by
 * multiplication like every quotient here.
 */
const UsdtFloor = Big();
UsdtFloor.DP = CURRENCY_SCALE.USDT;
UsdtFloor.RM = Big.roundDown;

/** Answered as a plain Big, so nothing later divides with this constructor's 6 places rounded down. */
function divideFloorUsdt(dividend: Big, divisor: Big): Big {
  return new Big(new UsdtFloor(dividend).div(divisor));
}

/**
 * 1 / BPS_PER_UNIT, exact: basis points scaled by a product, which big.js computes exactly, not a
 * division. Written out, so it never depends on a division's places; checked against the constant.
 */
const PER_BPS = new Big('0.0001');
assertRule(PER_BPS.times(BPS_PER_UNIT).eq(1), 'PER_BPS × BPS_PER_UNIT = 1');

/** An assertion failure here is a bug in this file: it stops the request, loudly. */
function assertRule(holds: boolean, rule: string): void {
  if (!holds) throw new Error(`pricing invariant broken: ${rule}`);
}

/** The quote's 4-decimal rate from the feed: ask rounded up for buys, bid rounded down for sells. */
export function quoteRate(side: Side, feed: { bid: Big; ask: Big }): Big {
  const rate = side === 'buy' ? roundUp(feed.ask, RATE_SCALE) : roundDown(feed.bid, RATE_SCALE);
  if (rate.lte(0) || rate.gt(RATE_KES_MAX)) throw new AppError('RATE_UNAVAILABLE');
  return rate;
}

/** Buy by KES: the most USDT whose price does not exceed the KES given. */
export function buyUsdtForKes(kesAmount: Big, rate: Big): Big {
  const usdt = roundDown(divideFloorUsdt(kesAmount, rate), USDT_SCALE);
  assertRule(usdt.times(rate).lte(kesAmount) && usdt.plus(USDT_UNIT).times(rate).gt(kesAmount), 'floor6(kes / rate)');
  return usdt;
}

/** Buy by USDT: the fewest KES that pay for the USDT asked. */
export function buyKesForUsdt(usdtAmount: Big, rate: Big): Big {
  const exact = usdtAmount.times(rate);
  const kes = roundUp(exact, KES_SCALE);
  assertRule(kes.gte(exact) && kes.minus(KES_UNIT).lt(exact), 'ceil2(usdt × rate)');
  return kes;
}

/** Sell by USDT: the most KES the USDT is worth, cut to the cent. */
export function sellKesForUsdt(usdtAmount: Big, rate: Big): Big {
  const exact = usdtAmount.times(rate);
  const kes = roundDown(exact, KES_SCALE);
  assertRule(kes.lte(exact) && kes.plus(KES_UNIT).gt(exact), 'floor2(usdt × rate)');
  return kes;
}

/** Sell by KES: the fewest USDT that are worth at least the KES asked. */
export function sellUsdtForKes(kesAmount: Big, rate: Big): Big {
  const usdt = roundUp(divide(kesAmount, rate), USDT_SCALE);
  assertRule(usdt.times(rate).gte(kesAmount) && usdt.minus(USDT_UNIT).times(rate).lt(kesAmount), 'ceil6(kes / rate)');
  return usdt;
}

/** fee = min(cap, ceil2(kes × bps / 10000) + flat); no cap when the schedule has none. */
export function feeKes(kesAmount: Big, schedule: FeeSchedule): Big {
  const percentPart = roundUp(kesAmount.times(schedule.percentBps).times(PER_BPS), KES_SCALE);
  const uncapped = percentPart.plus(schedule.flatKes);
  return schedule.capKes === null ? uncapped : min(schedule.capKes, uncapped);
}

/** What actually moves in KES: buy pays principal plus fee, sell receives principal minus fee. */
export function kesTotal(side: Side, kesAmount: Big, fee: Big): Big {
  return side === 'buy' ? kesAmount.plus(fee) : kesAmount.minus(fee);
}

export interface PricedQuote {
  side: Side;
  kesAmount: Big;
  usdtAmount: Big;
  rate: Big;
  feeKes: Big;
  kesTotalAmount: Big;
}

/** Both legs of a quote from the given one, at the quote's 4-decimal rate. */
export function priceLegs(side: Side, given: GivenAmount, rate: Big): { kesAmount: Big; usdtAmount: Big } {
  if (given.currency === 'KES') {
    const usdtAmount = side === 'buy' ? buyUsdtForKes(given.amount, rate) : sellUsdtForKes(given.amount, rate);
    return { kesAmount: given.amount, usdtAmount };
  }
  const kesAmount = side === 'buy' ? buyKesForUsdt(given.amount, rate) : sellKesForUsdt(given.amount, rate);
  return { kesAmount, usdtAmount: given.amount };
}

function givenField(given: GivenAmount): string {
  return given.currency === 'KES' ? 'kesAmount' : 'usdtAmount';
}

function refuseAmount(given: GivenAmount, errorCode: string): AppError {
  return new AppError('VALIDATION_FAILED', { fields: [givenField(given)], errorCode });
}

/**
 * Prices a whole quote. Refusals: VALIDATION_FAILED (an amount out of bounds or
 * too small to price, naming the given field), FEE_EXCEEDS_PROCEEDS.
 */
export function priceQuote(side: Side, given: GivenAmount, rate: Big, schedule: FeeSchedule): PricedQuote {
  assertRule(given.amount.gt(0), 'the given amount is positive');
  const { kesAmount, usdtAmount } = priceLegs(side, given, rate);
  if (kesAmount.gt(KES_AMOUNT_MAX) || usdtAmount.gt(USDT_AMOUNT_MAX))
    throw refuseAmount(given, 'AMOUNT_ABOVE_QUOTE_MAXIMUM');
  if (kesAmount.eq(0) || usdtAmount.eq(0)) throw refuseAmount(given, 'AMOUNT_TOO_SMALL_TO_PRICE');
  const fee = feeKes(kesAmount, schedule);
  if (side === 'sell' && fee.gte(kesAmount)) throw new AppError('FEE_EXCEEDS_PROCEEDS');
  return { side, kesAmount, usdtAmount, rate, feeKes: fee, kesTotalAmount: kesTotal(side, kesAmount, fee) };
}

/** Wire form: every amount at its exact scale. */
export function formatPricedQuote(quote: PricedQuote): {
  kesAmount: string;
  usdtAmount: string;
  rate: string;
  feeKes: string;
  kesTotalAmount: string;
} {
  return {
    kesAmount: formatAmount(quote.kesAmount, 'KES'),
    usdtAmount: formatAmount(quote.usdtAmount, 'USDT'),
    rate: formatDecimal(quote.rate, RATE_SCALE),
    feeKes: formatAmount(quote.feeKes, 'KES'),
    kesTotalAmount: formatAmount(quote.kesTotalAmount, 'KES'),
  };
}

/** A quote's wire form with its fee schedule's: every amount at its exact scale, formatted once for its row and its answer. */
export interface QuoteAmounts extends ReturnType<typeof formatPricedQuote> {
  feeFlatKes: string;
  feeCapKes: string | null;
}

export function formatQuoteAmounts(quote: PricedQuote, schedule: FeeSchedule): QuoteAmounts {
  return {
    ...formatPricedQuote(quote),
    feeFlatKes: formatAmount(schedule.flatKes, 'KES'),
    feeCapKes: schedule.capKes === null ? null : formatAmount(schedule.capKes, 'KES'),
  };
}
