// Proves the hold rules: a hold fits only within available (posted − held) unless the account may go negative,
// and a post takes more than zero and at most the held amount.
import { Big } from '@platform/money';
import { holdFits, isValidPostAmount } from './hold';

describe('hold rules', () => {
  it('fits within available only', () => {
    expect(holdFits(new Big('100.00'), new Big('40.00'), new Big('60.00'), false)).toBe(true);
    expect(holdFits(new Big('100.00'), new Big('40.00'), new Big('60.01'), false)).toBe(false);
    expect(holdFits(new Big('0'), new Big('0'), new Big('1'), true)).toBe(true);
  });

  it('posts more than zero and at most the hold', () => {
    expect(isValidPostAmount(new Big('10'), new Big('10'))).toBe(true);
    expect(isValidPostAmount(new Big('0.01'), new Big('10'))).toBe(true);
    expect(isValidPostAmount(new Big('0'), new Big('10'))).toBe(false);
    expect(isValidPostAmount(new Big('10.01'), new Big('10'))).toBe(false);
  });
});
