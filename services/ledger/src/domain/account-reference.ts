/**
 * The paybill account reference a payer types on a phone keypad to fund a
 * partner's KES account: 10 random digits and a Damm check digit. Damm catches
 * every single-digit error and every adjacent transposition, so a mistyped
 * reference lands in suspense instead of in the wrong partner's account.
 */
import { randomInt } from 'node:crypto';

const BODY_DIGITS = 10;

// The Damm quasigroup of order 10 (weakly totally anti-symmetric).
const DAMM_TABLE = [
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

function dammInterim(digits: string): number {
  let interim = 0;
  for (const digit of digits) interim = DAMM_TABLE[interim]![Number(digit)]!;
  return interim;
}

/** The Damm interim digit: appended to a body as its check digit; 0 over a whole reference means it checks. */
export function dammCheckDigit(digits: string): number {
  return dammInterim(digits);
}

export function newAccountReference(): string {
  let body = String(1 + randomInt(9));
  for (let i = 1; i < BODY_DIGITS; i += 1) body += String(randomInt(10));
  return `${body}${dammInterim(body)}`;
}

/** Normalises what a payer typed (spaces, hyphens) and verifies the check digit. */
export function normaliseAccountReference(typed: string): string | null {
  const cleaned = typed.replace(/[\s-]/g, '');
  if (!/^[1-9]\d{10}$/.test(cleaned)) return null;
  return dammInterim(cleaned) === 0 ? cleaned : null;
}
