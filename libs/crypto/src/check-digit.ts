/**
 * Damm check digits for the numeric references payers type on a keypad (a partner's paybill
 * reference in the ledger, a pay-in order's payment reference in trading). Damm catches
 * every single-digit error and every adjacent transposition, so a mistyped reference is
 * recognised as nobody's instead of landing with someone else.
 */

// The Damm quasigroup of order 10 (weakly totally anti-symmetric).
const DAMM_TABLE: readonly (readonly number[])[] = [
  [0, 3, 1, 7, 5, 9, 8, 6, 4, 2],
  [7, 0, 9, 2, 1, 5, 4, 8, 6, 3],
  [4, 2, 0, 6, 8, 7, 1, 3, 5, 9],
  [1, 7, 5, 0, 9, 8, 3, 4, 2, 6],
  [6, 1, 2, 3, 0, 4, 5, 9, 7, 8],
  [3, 6, 7, 4, 2, 0, 9, 5, 8, 1],
  [5, 8, 6, 9, 7, 2, 0, 1, 3, 4],
  [8, 9, 4, 5, 3, 6, 2, 0, 1, 7],
  [9, 4, 3, 8, 6, 1, 7, 2, 0, 5],
  [2, 5, 8, 1, 4, 3, 6, 7, 9, 0],
];

/**
 * The Damm interim digit of a string of decimal digits: appended to a body it is the body's
 * check digit, and over a whole reference it is 0 exactly when the reference checks.
 */
export function dammCheckDigit(digits: string): number {
  if (!/^\d*$/.test(digits)) throw new Error('dammCheckDigit takes decimal digits only');
  let interim = 0;
  for (const digit of digits) interim = DAMM_TABLE[interim]![Number(digit)]!;
  return interim;
}
