// Proves the ABA checksum accepts real routing numbers and refuses any single
// wrong digit, and that masking keeps only the last four digits.
import { isValidAbaRoutingNumber, maskAccountNumber } from './routing-number';

describe('ABA routing numbers', () => {
  it('accepts valid numbers', () => {
    for (const valid of ['011000015', '021000021', '026009593', '121000358'])
      expect(isValidAbaRoutingNumber(valid)).toBe(true);
  });

  it('refuses every single-digit change, bad shapes and all zeros', () => {
    const valid = '011000015';
    for (let i = 0; i < valid.length; i += 1) {
      for (let digit = 0; digit <= 9; digit += 1) {
        if (String(digit) === valid[i]) continue;
        expect(isValidAbaRoutingNumber(valid.slice(0, i) + digit + valid.slice(i + 1))).toBe(false);
      }
    }
    for (const invalid of ['01100001', '0110000150', '01100001a', '000000000'])
      expect(isValidAbaRoutingNumber(invalid)).toBe(false);
  });

  it('masks account numbers to the last four digits', () => {
    expect(maskAccountNumber('900012345678')).toBe('****5678');
  });
});
