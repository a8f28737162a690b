// Proves every quote rounding rule at its
// exact boundaries (exact divisions, one unit either side of a rounding step,
// caps applying or not, zero parts, a sell fee equal to its principal, feed
// rates with more than 4 decimals), then checks many seeded-random inputs against
// an independent integer oracle (BigInt minor units) and the "never favours the
// partner" invariants. Expected values are worked by hand in the comments.
import { AppError } from '@platform/errors';
import { Big } from '@platform/money';
import type { FeeSchedule } from './fee-schedule';
import {
  formatQuoteAmounts,
  buyKesForUsdt,
  buyUsdtForKes,
  feeKes,
  formatPricedQuote,
  GivenAmount,
  KES_AMOUNT_MAX,
  kesTotal,
  priceQuote,
  quoteRate,
  sellKesForUsdt,
  sellUsdtForKes,
  Side,
  USDT_AMOUNT_MAX,
} from './pricing';

const b = (value: string) => new Big(value);
const kes = (amount: string): GivenAmount => ({ currency: 'KES', amount: b(amount) });
const usdt = (amount: string): GivenAmount => ({ currency: 'USDT', amount: b(amount) });
const schedule = (percentBps: number, flatKes: string, capKes: string | null): FeeSchedule => ({
  percentBps,
  flatKes: b(flatKes),
  capKes: capKes === null ? null : b(capKes),
});
const NO_FEE = schedule(0, '0', null);
/** The integration tests' partner: 1%, 10.00 flat, capped at 500.00. */
const STANDARD_FEE = schedule(100, '10.00', '500.00');

function refusal(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('quoteRate: 4 decimals, ask rounded up for buys, bid rounded down for sells', () => {
  it.each([
    ['130.9876', '130.9876'], // already 4 dp: unchanged
    ['130.98760', '130.9876'], // trailing zero beyond 4 dp: unchanged
    ['130.98761', '130.9877'], // one unit in the 5th decimal: up
    ['130.987600001', '130.9877'], // the smallest excess still rounds up
    ['130.98769999', '130.9877'],
    ['130.9999999', '131.0000'], // carries into the integer
  ])('buy: ask %s gives %s', (ask, expected) => {
    expect(quoteRate('buy', { bid: b('1'), ask: b(ask) }).toFixed(4)).toBe(expected);
  });

  it.each([
    ['128.1234', '128.1234'],
    ['128.12340001', '128.1234'], // excess is cut, never rounded up
    ['128.12349999', '128.1234'], // even just below the next step
    ['128.1235', '128.1235'],
  ])('sell: bid %s gives %s', (bid, expected) => {
    expect(quoteRate('sell', { bid: b(bid), ask: b('999') }).toFixed(4)).toBe(expected);
  });

  it('uses the ask for buys and the bid for sells', () => {
    const feed = { bid: b('128.1234'), ask: b('130.9876') };
    expect(quoteRate('buy', feed).toString()).toBe('130.9876');
    expect(quoteRate('sell', feed).toString()).toBe('128.1234');
  });

  it('refuses a bid that rounds down to zero, and an absurd ask, as no live rate', () => {
    expect(refusal(() => quoteRate('sell', { bid: b('0.00009'), ask: b('1') })).code).toBe('RATE_UNAVAILABLE');
    expect(refusal(() => quoteRate('buy', { bid: b('1'), ask: b('1000000.00001') })).code).toBe('RATE_UNAVAILABLE');
    expect(quoteRate('buy', { bid: b('1'), ask: b('1000000') }).toString()).toBe('1000000');
  });
});

describe('buy by KES: usdtAmount = floor6(kesAmount / rate)', () => {
  it.each([
    ['1295.00', '129.5000', '10.000000'], // divides exactly
    ['1000.00', '125.0000', '8.000000'], // divides exactly
    ['1295.01', '129.5000', '10.000077'], // 10.0000772200…: cut
    ['1294.99', '129.5000', '9.999922'], // 9.9999227799…: cut, not rounded to 10
    ['1.00', '3.0000', '0.333333'], // 0.333333333…
    ['0.01', '130.0000', '0.000076'], // 0.0000769230…: the smallest KES still buys something
    ['1000.00', '130.9876', '7.634310'], // 7.63431045…; 7.634310 × 130.9876 = 999.9999445560 ≤ 1000
  ])('%s KES at %s gives %s USDT', (kesAmount, rate, expected) => {
    expect(buyUsdtForKes(b(kesAmount), b(rate)).toFixed(6)).toBe(expected);
  });
});

describe('buy by USDT: kesAmount = ceil2(usdtAmount × rate)', () => {
  it.each([
    ['10.000000', '129.5000', '1295.00'], // 1295 exactly
    ['10.000001', '129.5000', '1295.01'], // 1295.0001295: any excess is a whole cent more
    ['9.999999', '129.5000', '1295.00'], // 1294.9998705: up to the next cent
    ['0.000001', '129.5000', '0.01'], // 0.0001295: never free
    ['2.000000', '0.0050', '0.01'], // 0.01 exactly
    ['10.000001', '130.9876', '1309.88'], // 1309.8761309876
  ])('%s USDT at %s costs %s KES', (usdtAmount, rate, expected) => {
    expect(buyKesForUsdt(b(usdtAmount), b(rate)).toFixed(2)).toBe(expected);
  });
});

describe('sell by USDT: kesAmount = floor2(usdtAmount × rate)', () => {
  it.each([
    ['4.000000', '125.0000', '500.00'], // 500 exactly
    ['10.000000', '128.1234', '1281.23'], // 1281.234: cut
    ['10.123456', '128.1234', '1297.05'], // 1297.0516024704
    ['0.000079', '128.1234', '0.01'], // 0.0101217486: the smallest USDT worth a cent
    ['0.000078', '128.1234', '0.00'], // 0.0099936252: worth nothing
    ['0.000001', '128.1234', '0.00'],
  ])('%s USDT at %s pays %s KES', (usdtAmount, rate, expected) => {
    expect(sellKesForUsdt(b(usdtAmount), b(rate)).toFixed(2)).toBe(expected);
  });
});

describe('sell by KES: usdtAmount = ceil6(kesAmount / rate)', () => {
  it.each([
    ['1295.00', '129.5000', '10.000000'], // divides exactly: no extra micro-USDT
    ['1.00', '3.0000', '0.333334'], // 0.333333…: up
    ['1281.23', '128.1234', '9.999969'], // 9.99996878…
    ['0.01', '128.1234', '0.000079'], // 0.0000780497…
    ['2500.55', '128.1234', '19.516732'], // 19.51673152…
  ])('%s KES at %s needs %s USDT', (kesAmount, rate, expected) => {
    expect(sellUsdtForKes(b(kesAmount), b(rate)).toFixed(6)).toBe(expected);
  });
});

describe('fee = min(cap, ceil2(kesAmount × bps / 10000) + flat)', () => {
  it.each([
    // kesAmount, bps, flat, cap, fee
    ['1000.00', 100, '10.00', '500.00', '20.00'], // 10.00 exactly + 10.00
    ['1000.01', 100, '10.00', '500.00', '20.01'], // 10.0001 → 10.01
    ['999.99', 100, '10.00', '500.00', '20.00'], // 9.9999 → 10.00
    ['48999.00', 100, '10.00', '500.00', '499.99'], // 489.99 + 10: cap not reached
    ['49000.00', 100, '10.00', '500.00', '500.00'], // 490 + 10 = 500: equal to the cap
    ['49000.01', 100, '10.00', '500.00', '500.00'], // 490.01 + 10 = 500.01: the cap applies
    ['60000.00', 100, '10.00', '500.00', '500.00'], // 610.00 capped
    ['1000000000.00', 100, '0.00', null, '10000000.00'], // null cap: never capped
    ['1000.00', 0, '10.00', null, '10.00'], // zero bps: flat only
    ['1.00', 50, '0.00', null, '0.01'], // zero flat: 0.005 → 0.01
    ['0.01', 50, '0.00', null, '0.01'], // 0.00005 → 0.01: a percentage is never rounded away
    ['1000.00', 0, '0.00', null, '0.00'], // no fee at all
    ['123.45', 10000, '1.00', null, '124.45'], // 100%: the whole principal plus flat
    ['1000.00', 100, '0.00', '0.00', '0.00'], // cap 0: fee-free
  ] as const)('%s KES at %d bps + %s flat, cap %s: fee %s', (kesAmount, bps, flat, cap, expected) => {
    expect(feeKes(b(kesAmount), schedule(bps, flat, cap)).toFixed(2)).toBe(expected);
  });
});

describe('kesTotal', () => {
  it('adds the fee on a buy and subtracts it on a sell', () => {
    expect(kesTotal('buy', b('1000.00'), b('20.00')).toFixed(2)).toBe('1020.00');
    expect(kesTotal('sell', b('1000.00'), b('20.00')).toFixed(2)).toBe('980.00');
  });
});

describe('priceQuote', () => {
  const rate = b('130.9876');
  const sellRate = b('128.1234');

  it('prices a buy by KES with every field at its exact scale', () => {
    expect(formatPricedQuote(priceQuote('buy', kes('1000.00'), rate, STANDARD_FEE))).toEqual({
      kesAmount: '1000.00',
      usdtAmount: '7.634310',
      rate: '130.9876',
      feeKes: '20.00',
      kesTotalAmount: '1020.00',
    });
  });

  it("formats the quote with its schedule's flat part and cap, once, each at its exact scale", () => {
    const priced = priceQuote('buy', kes('1000.00'), rate, STANDARD_FEE);
    expect(formatQuoteAmounts(priced, STANDARD_FEE)).toEqual({
      ...formatPricedQuote(priced),
      feeFlatKes: '10.00',
      feeCapKes: '500.00',
    });
    const uncapped = { percentBps: 0, flatKes: b('1.5'), capKes: null };
    expect(formatQuoteAmounts(priceQuote('buy', kes('1000.00'), rate, uncapped), uncapped)).toMatchObject({
      feeKes: '1.50',
      feeFlatKes: '1.50',
      feeCapKes: null,
    });
  });

  it('prices a buy by USDT', () => {
    // kes = ceil2(1309.8761309876) = 1309.88; fee = ceil2(13.0988) + 10 = 23.10
    expect(formatPricedQuote(priceQuote('buy', usdt('10.000001'), rate, STANDARD_FEE))).toEqual({
      kesAmount: '1309.88',
      usdtAmount: '10.000001',
      rate: '130.9876',
      feeKes: '23.10',
      kesTotalAmount: '1332.98',
    });
  });

  it('prices a sell by USDT', () => {
    // kes = floor2(1297.0516024704) = 1297.05; fee = ceil2(12.9705) + 10 = 22.98
    expect(formatPricedQuote(priceQuote('sell', usdt('10.123456'), sellRate, STANDARD_FEE))).toEqual({
      kesAmount: '1297.05',
      usdtAmount: '10.123456',
      rate: '128.1234',
      feeKes: '22.98',
      kesTotalAmount: '1274.07',
    });
  });

  it('prices a sell by KES', () => {
    // usdt = ceil6(19.51673152…) = 19.516732; fee = ceil2(25.0055) + 10 = 35.01
    expect(formatPricedQuote(priceQuote('sell', kes('2500.55'), sellRate, STANDARD_FEE))).toEqual({
      kesAmount: '2500.55',
      usdtAmount: '19.516732',
      rate: '128.1234',
      feeKes: '35.01',
      kesTotalAmount: '2465.54',
    });
  });

  it('refuses a sell whose fee equals its principal, and one whose fee exceeds it', () => {
    // 10.11: fee = ceil2(0.1011) + 10 = 10.11 = principal
    expect(refusal(() => priceQuote('sell', kes('10.11'), sellRate, STANDARD_FEE)).code).toBe('FEE_EXCEEDS_PROCEEDS');
    // 10.00: fee = 0.10 + 10 = 10.10 > principal
    expect(refusal(() => priceQuote('sell', kes('10.00'), sellRate, STANDARD_FEE)).code).toBe('FEE_EXCEEDS_PROCEEDS');
    // 0.000079 USDT is worth 0.01 KES, fee 10.01
    expect(refusal(() => priceQuote('sell', usdt('0.000079'), sellRate, STANDARD_FEE)).code).toBe(
      'FEE_EXCEEDS_PROCEEDS',
    );
  });

  it('accepts a sell one cent above that boundary, paying out one cent', () => {
    // 10.12: fee = ceil2(0.1012) + 10 = 10.11; total 0.01
    expect(formatPricedQuote(priceQuote('sell', kes('10.12'), sellRate, STANDARD_FEE)).kesTotalAmount).toBe('0.01');
  });

  it('lets a buy carry a fee above its principal (the partner pays it on top)', () => {
    expect(formatPricedQuote(priceQuote('buy', kes('10.00'), rate, STANDARD_FEE)).kesTotalAmount).toBe('20.10');
  });

  it('refuses an amount whose other leg prices to zero, naming the field given', () => {
    const sellDust = refusal(() => priceQuote('sell', usdt('0.000001'), sellRate, NO_FEE));
    expect(sellDust.partnerMessage).toBe('Validation failed on: usdtAmount');
    expect(sellDust.errorCode).toBe('AMOUNT_TOO_SMALL_TO_PRICE');
    // 0.01 / 10001 = 0.00000099…: floor6 is zero
    const buyDust = refusal(() => priceQuote('buy', kes('0.01'), b('10001.0000'), NO_FEE));
    expect(buyDust.partnerMessage).toBe('Validation failed on: kesAmount');
    expect(buyDust.errorCode).toBe('AMOUNT_TOO_SMALL_TO_PRICE');
    // 0.01 KES at 130: 0.000076 USDT is small but not zero
    expect(formatPricedQuote(priceQuote('buy', kes('0.01'), b('130.0000'), NO_FEE)).usdtAmount).toBe('0.000076');
  });

  it('bounds both legs of one quote', () => {
    expect(formatPricedQuote(priceQuote('buy', kes(KES_AMOUNT_MAX.toFixed(2)), rate, NO_FEE)).kesAmount).toBe(
      '1000000000000.00',
    );
    const overKes = refusal(() => priceQuote('buy', kes('1000000000000.01'), rate, NO_FEE));
    expect(overKes.partnerMessage).toBe('Validation failed on: kesAmount');
    expect(overKes.errorCode).toBe('AMOUNT_ABOVE_QUOTE_MAXIMUM');
    expect(
      refusal(() => priceQuote('sell', usdt(USDT_AMOUNT_MAX.plus('0.000001').toFixed(6)), b('0.0001'), NO_FEE))
        .partnerMessage,
    ).toBe('Validation failed on: usdtAmount');
    // 1e10 USDT at 129.5 is 1.295e12 KES: the computed leg is over, the given field is named
    expect(refusal(() => priceQuote('buy', usdt('10000000000.000000'), b('129.5000'), NO_FEE)).partnerMessage).toBe(
      'Validation failed on: usdtAmount',
    );
  });
});

// ---------------------------------------------------------------- property checks

/** mulberry32: a small seeded PRNG, for reproducible test inputs only. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ceilDiv = (a: bigint, d: bigint) => (a + d - 1n) / d;
const toMinor = (value: Big, scale: number) => BigInt(value.toFixed(scale).replace('.', ''));
const minor = (units: bigint, scale: number) => new Big(units.toString()).div(new Big(10).pow(scale)).toFixed(scale);

describe('seeded random inputs', () => {
  const random = seededRandom(0x5eed);
  const pick = (low: number, high: number) => BigInt(low + Math.floor(random() * (high - low + 1)));
  const iterations = 5_000;

  it('agree with an integer oracle and never favour the partner', () => {
    for (let i = 0; i < iterations; i += 1) {
      const rateUnits = pick(10_000, 30_000_000); // 1.0000 .. 3000.0000
      const rate = new Big(minor(rateUnits, 4));
      const kesCents = pick(1, 1_000_000_000); // 0.01 .. 10,000,000.00
      const usdtMicros = pick(1, 100_000_000_000); // 0.000001 .. 100,000.000000
      const kesAmount = new Big(minor(kesCents, 2));
      const usdtAmount = new Big(minor(usdtMicros, 6));

      // kes / rate in micro-USDT = (K/100) / (R/10^4) × 10^6 = K × 10^8 / R
      const buyUsdt = buyUsdtForKes(kesAmount, rate);
      expect(toMinor(buyUsdt, 6)).toBe((kesCents * 100_000_000n) / rateUnits);
      expect(buyUsdt.times(rate).lte(kesAmount)).toBe(true);
      const sellUsdt = sellUsdtForKes(kesAmount, rate);
      expect(toMinor(sellUsdt, 6)).toBe(ceilDiv(kesCents * 100_000_000n, rateUnits));
      expect(sellUsdt.times(rate).gte(kesAmount)).toBe(true);

      // usdt × rate in cents = (U/10^6) × (R/10^4) × 100 = U × R / 10^8
      const buyKes = buyKesForUsdt(usdtAmount, rate);
      expect(toMinor(buyKes, 2)).toBe(ceilDiv(usdtMicros * rateUnits, 100_000_000n));
      expect(buyKes.gte(usdtAmount.times(rate))).toBe(true);
      const sellKes = sellKesForUsdt(usdtAmount, rate);
      expect(toMinor(sellKes, 2)).toBe((usdtMicros * rateUnits) / 100_000_000n);
      expect(sellKes.lte(usdtAmount.times(rate))).toBe(true);
    }
  });

  it('price fees exactly, within the cap, with totals that add up at exact scale', () => {
    for (let i = 0; i < iterations; i += 1) {
      const bps = Number(pick(0, 10_000));
      const flatCents = pick(0, 100_000);
      const capCents = random() < 0.3 ? null : flatCents + pick(0, 1_000_000);
      const fee = schedule(bps, minor(flatCents, 2), capCents === null ? null : minor(capCents, 2));
      const side: Side = random() < 0.5 ? 'buy' : 'sell';
      const given = random() < 0.5 ? kes(minor(pick(1, 1_000_000_000), 2)) : usdt(minor(pick(1, 100_000_000_000), 6));
      const rate = new Big(minor(pick(10_000, 30_000_000), 4));

      let quote;
      try {
        quote = formatPricedQuote(priceQuote(side, given, rate, fee));
      } catch (error) {
        expect(error).toBeInstanceOf(AppError);
        expect(['FEE_EXCEEDS_PROCEEDS', 'VALIDATION_FAILED']).toContain((error as AppError).code);
        continue;
      }
      expect(quote.kesAmount).toMatch(/^\d+\.\d{2}$/);
      expect(quote.usdtAmount).toMatch(/^\d+\.\d{6}$/);
      expect(quote.rate).toMatch(/^\d+\.\d{4}$/);
      expect(quote.feeKes).toMatch(/^\d+\.\d{2}$/);
      expect(quote.kesTotalAmount).toMatch(/^\d+\.\d{2}$/);

      // fee in cents = min(cap, ceil(K × bps / 10^4) + flat)
      const principalCents = toMinor(new Big(quote.kesAmount), 2);
      const uncapped = ceilDiv(principalCents * BigInt(bps), 10_000n) + flatCents;
      const expectedFee = capCents !== null && capCents < uncapped ? capCents : uncapped;
      expect(toMinor(new Big(quote.feeKes), 2)).toBe(expectedFee);
      const totalCents = toMinor(new Big(quote.kesTotalAmount), 2);
      expect(totalCents).toBe(side === 'buy' ? principalCents + expectedFee : principalCents - expectedFee);
      if (side === 'sell') expect(totalCents > 0n).toBe(true);
    }
  });
});
