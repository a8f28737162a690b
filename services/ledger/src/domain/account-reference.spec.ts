// Proves references are 11 digits that survive casual retyping, and that every
// single-digit substitution and adjacent transposition is caught.
import { newAccountReference, normaliseAccountReference } from './account-reference';

describe('account references', () => {
  it('round-trips and tolerates spaces and hyphens', () => {
    const reference = newAccountReference();
    expect(reference).toMatch(/^[1-9]\d{10}$/);
    expect(normaliseAccountReference(reference)).toBe(reference);
    expect(normaliseAccountReference(` ${reference.slice(0, 4)}-${reference.slice(4)} `)).toBe(reference);
  });

  it('catches every single-digit substitution and adjacent transposition', () => {
    for (let n = 0; n < 50; n += 1) {
      const reference = newAccountReference();
      for (let i = 0; i < reference.length; i += 1) {
        for (let digit = 0; digit <= 9; digit += 1) {
          if (String(digit) === reference[i]) continue;
          expect(normaliseAccountReference(reference.slice(0, i) + digit + reference.slice(i + 1))).toBeNull();
        }
        if (i < reference.length - 1 && reference[i] !== reference[i + 1]) {
          expect(
            normaliseAccountReference(reference.slice(0, i) + reference[i + 1] + reference[i] + reference.slice(i + 2)),
          ).toBeNull();
        }
      }
    }
  });

  it('refuses wrong length and non-digits', () => {
    expect(normaliseAccountReference('123')).toBeNull();
    expect(normaliseAccountReference('12345678901a')).toBeNull();
    expect(normaliseAccountReference('ABCDEFGHIJK')).toBeNull();
  });
});
