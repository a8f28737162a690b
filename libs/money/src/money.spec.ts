// Proves strict parsing at each currency's scale, exact formatting, and rounding
// that always moves in the named direction.
import {
  Big,
  formatAmount,
  formatDecimal,
  fromMinorUnits,
  parseAmount,
  parsePositiveAmount,
  roundDown,
  roundUp,
  toMinorUnits,
} from './index';

describe('parseAmount', () => {
  it.each([
    ['1000.00', 'KES', '1000'],
    ['0.5', 'KES', '0.5'],
    ['10.123456', 'USDT', '10.123456'],
    ['0', 'KES', '0'],
    ['999999999999999.99', 'KES', '999999999999999.99'],
  ] as const)('accepts %s %s', (text, currency, expected) => {
    expect(parseAmount(text, currency)?.toString()).toBe(expected);
  });

  it.each([
    ['1000.001', 'KES'],
    ['10.1234567', 'USDT'],
    ['-1.00', 'KES'],
    ['+1', 'KES'],
    ['1e3', 'KES'],
    ['01.00', 'KES'],
    ['1.', 'KES'],
    ['.5', 'KES'],
    [' 1', 'KES'],
    ['1,000', 'KES'],
    ['NaN', 'KES'],
    ['Infinity', 'KES'],
    ['', 'KES'],
    ['1000000000000000', 'KES'],
    ['0x10', 'KES'],
  ] as const)('refuses %p %s', (text, currency) => {
    expect(parseAmount(text, currency)).toBeNull();
  });

  it('refuses non-strings, including numbers', () => {
    for (const value of [10, null, undefined, {}, ['1'], true]) expect(parseAmount(value, 'KES')).toBeNull();
  });

  it('positive amounts exclude zero', () => {
    expect(parsePositiveAmount('0.00', 'KES')).toBeNull();
    expect(parsePositiveAmount('0.01', 'KES')?.toString()).toBe('0.01');
  });
});

describe('rounding', () => {
  it('rounds up and down in the named direction', () => {
    expect(roundUp(new Big('1.001'), 2).toString()).toBe('1.01');
    expect(roundUp(new Big('1.000'), 2).toString()).toBe('1');
    expect(roundDown(new Big('1.009'), 2).toString()).toBe('1');
    expect(roundDown(new Big('7.7272727272'), 6).toString()).toBe('7.727272');
    expect(roundUp(new Big('7.7272721'), 6).toString()).toBe('7.727273');
  });

  it('refuses negative inputs', () => {
    expect(() => roundUp(new Big('-1.5'), 0)).toThrow(RangeError);
    expect(() => roundDown(new Big('-1.5'), 0)).toThrow(RangeError);
  });
});

describe('formatting', () => {
  it('pads to the exact scale', () => {
    expect(formatAmount(new Big('1500'), 'KES')).toBe('1500.00');
    expect(formatAmount(new Big('10.5'), 'USDT')).toBe('10.500000');
    expect(formatDecimal(new Big('129.55'), 4)).toBe('129.5500');
  });

  it('refuses to silently round', () => {
    expect(() => formatAmount(new Big('1.005'), 'KES')).toThrow(RangeError);
  });

  it('converts to and from minor units exactly', () => {
    expect(toMinorUnits(new Big('1234.56'), 'USD')).toBe(123456n);
    expect(fromMinorUnits(123456n, 'USD').toString()).toBe('1234.56');
  });
});
