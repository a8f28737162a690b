// Proves the outgoing-value assertions accept exactly the conventions of spec
// section 2 and refuse anything else (wrong scale, numbers, exponents, local
// times, upper-case or malformed ids).
import {
  wireAmount,
  wireCurrency,
  wireDecimal,
  wireNonNegativeInteger,
  wireRate,
  wireTimestamp,
  WireFormatError,
  wireUuid,
} from './wire-format';

describe('wire format', () => {
  it('accepts amounts at exactly their currency scale', () => {
    expect(wireAmount('1500.00', 'KES', 'kesAmount')).toBe('1500.00');
    expect(wireAmount('0.000001', 'USDT', 'usdtAmount')).toBe('0.000001');
    expect(wireRate('129.5500', 'rate')).toBe('129.5500');
  });

  it.each([['1500'], ['1500.0'], ['1500.000'], ['01.00'], ['-1.00'], ['1e3'], [1500], [null]])(
    'refuses KES %p',
    (value) => {
      expect(() => wireAmount(value, 'KES', 'kesAmount')).toThrow(WireFormatError);
    },
  );

  it('refuses a rate without 4 decimals and reports the field, not the value', () => {
    expect(() => wireRate('129.55', 'rate')).toThrow('upstream value of rate is not a decimal string with 4 decimals');
    expect(() => wireDecimal('1.0', 2, 'x')).toThrow(WireFormatError);
  });

  it('checks each scale against its own pattern however the calls interleave (one pattern kept per scale)', () => {
    for (let round = 0; round < 2; round += 1) {
      expect(wireDecimal('1.00', 2, 'x')).toBe('1.00');
      expect(() => wireDecimal('1.000000', 2, 'x')).toThrow(WireFormatError);
      expect(wireDecimal('1.000000', 6, 'x')).toBe('1.000000');
      expect(() => wireDecimal('1.00', 6, 'x')).toThrow(WireFormatError);
      expect(wireRate('129.5500', 'rate')).toBe('129.5500');
    }
  });

  it('checks timestamps, ids, currencies and integers', () => {
    expect(wireTimestamp('2026-11-21T08:00:00.000Z', 't')).toBe('2026-11-21T08:00:00.000Z');
    for (const bad of ['2026-11-21T08:00:00Z', '2026-11-21T08:00:00.000+03:00', '2026-13-45T08:00:00.000Z', '']) {
      expect(() => wireTimestamp(bad, 't')).toThrow(WireFormatError);
    }
    expect(wireUuid('6f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11', 'id')).toBeTruthy();
    expect(() => wireUuid('6F1C1A52-6D0E-4F51-9B6C-2F0D2B8A1E11', 'id')).toThrow(WireFormatError);
    expect(wireCurrency('USDT', 'currency')).toBe('USDT');
    expect(() => wireCurrency('EUR', 'currency')).toThrow(WireFormatError);
    expect(wireNonNegativeInteger(30, 'n')).toBe(30);
    expect(() => wireNonNegativeInteger(1.5, 'n')).toThrow(WireFormatError);
  });
});
