// Proves storedAmountAtScale answers exactly what formatAmount(new Big(text))
// answers for every currency, over stored texts of every shape (negative, zero,
// below one, long), and refuses what formatAmount refuses (digits past the
// currency's scale), also for text not in the stored shape.
import { Big, formatAmount, type Currency } from '@platform/money';
import { storedAmountAtScale } from './stored-amount';

const CURRENCIES: Currency[] = ['KES', 'USDT', 'USD'];
const TEXTS = [
  '0.000000',
  '1.000000',
  '-1.000000',
  '-125.500000',
  '875.000000',
  '0.010000',
  '-0.010000',
  '123456789012345678901234.000000',
  '1500',
  '-2.5',
];

describe('storedAmountAtScale', () => {
  it.each(CURRENCIES)('answers what formatAmount answers in %s', (currency) => {
    for (const text of TEXTS) expect(storedAmountAtScale(text, currency)).toBe(formatAmount(new Big(text), currency));
  });

  it("refuses digits past the currency's scale, as formatAmount does", () => {
    expect(() => storedAmountAtScale('1.000001', 'KES')).toThrow(RangeError);
    expect(() => storedAmountAtScale('-0.005000', 'USD')).toThrow(RangeError);
    expect(() => storedAmountAtScale('1.0000001', 'USDT')).toThrow(RangeError);
    expect(storedAmountAtScale('1.000001', 'USDT')).toBe('1.000001');
  });
});
