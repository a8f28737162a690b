// Proves the pure daily cap rules: request shape, USDT valuation rounding up,
// the remainder never below zero. The boundary (equal passes, a cent over
// refuses with the source's code) is the database's: test/cap-window.int.spec.ts.
import { Big } from '@platform/money';
import { parseReserveDailyCap, remainingKes, usdtToCapKes } from './daily-cap';

const USAGE = '11111111-1111-4111-8111-111111111111';
const PARTNER = '22222222-2222-4222-8222-222222222222';

describe('parseReserveDailyCap', () => {
  it('accepts a KES usage', () => {
    const parsed = parseReserveDailyCap({ usageId: USAGE, partnerId: PARTNER, source: 'order', amountKes: '10.50' });
    expect(parsed.given.currency).toBe('KES');
    expect(parsed.given.amount.toFixed(2)).toBe('10.50');
  });

  it('names every bad field', () => {
    expect(() =>
      parseReserveDailyCap({ usageId: 'x', partnerId: PARTNER, source: 'swap', amountKes: '1.001' }),
    ).toThrow('Validation failed on: usageId, source, amountKes');
  });

  it('needs exactly one amount', () => {
    expect(() => parseReserveDailyCap({ usageId: USAGE, partnerId: PARTNER, source: 'transfer' })).toThrow(
      'amountKes, amountUsdt',
    );
    expect(() =>
      parseReserveDailyCap({ usageId: USAGE, partnerId: PARTNER, source: 'transfer', amountKes: '1', amountUsdt: '1' }),
    ).toThrow('amountKes, amountUsdt');
  });
});

describe('usdtToCapKes', () => {
  it('rounds up to the cent', () => {
    expect(usdtToCapKes(new Big('1.000001'), new Big('128.1234')).toFixed(2)).toBe('128.13');
    expect(usdtToCapKes(new Big('10'), new Big('128.12')).toFixed(2)).toBe('1281.20');
  });
});

describe('remainingKes', () => {
  it('never reports a negative remainder', () => {
    expect(remainingKes(new Big('100'), new Big('150'))).toBe('0.00');
    expect(remainingKes(new Big('100'), new Big('25.5'))).toBe('74.50');
  });
});
