// Proves references are 11 symbols of an unambiguous alphabet, tolerate case,
// spaces, hyphens and Crockford look-alikes, and that every single-symbol
// substitution and every adjacent transposition is caught by the check symbol.
import { newCollectionReference, normaliseCollectionReference, REFERENCE_ALPHABET } from './collection-reference';

const SAMPLES = 200;

describe('collection references', () => {
  it('round-trips and tolerates case, spaces, hyphens and look-alikes', () => {
    const reference = newCollectionReference();
    expect(reference).toMatch(/^[0-9A-HJKMNP-TV-Y]{11}$/);
    expect(normaliseCollectionReference(reference)).toBe(reference);
    expect(normaliseCollectionReference(` ${reference.slice(0, 5).toLowerCase()}-${reference.slice(5)} `)).toBe(
      reference,
    );
    const withLookAlikes = reference.replace(/0/g, 'o').replace(/1/g, 'l');
    expect(normaliseCollectionReference(withLookAlikes)).toBe(reference);
  });

  it('catches every single substitution and adjacent transposition', () => {
    for (let sample = 0; sample < SAMPLES; sample += 1) {
      const reference = newCollectionReference();
      for (let i = 0; i < reference.length; i += 1) {
        for (const symbol of REFERENCE_ALPHABET) {
          if (symbol === reference[i]) continue;
          expect(normaliseCollectionReference(reference.slice(0, i) + symbol + reference.slice(i + 1))).toBeNull();
        }
        if (i < reference.length - 1 && reference[i] !== reference[i + 1]) {
          expect(
            normaliseCollectionReference(
              reference.slice(0, i) + reference[i + 1] + reference[i] + reference.slice(i + 2),
            ),
          ).toBeNull();
        }
      }
    }
  });

  it('refuses wrong length and symbols outside the alphabet', () => {
    const reference = newCollectionReference();
    expect(normaliseCollectionReference(reference.slice(1))).toBeNull();
    expect(normaliseCollectionReference(`${reference}0`)).toBeNull();
    expect(normaliseCollectionReference(`${reference.slice(0, 10)}U`)).toBeNull();
    expect(normaliseCollectionReference('')).toBeNull();
  });
});
