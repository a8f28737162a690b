/**
 * The paybill account reference a payer types on a phone keypad to fund a
 * partner's KES account: 10 random digits and a Damm check digit. Damm catches
 * every single-digit error and every adjacent transposition, so a mistyped
 * reference lands in suspense instead of in the wrong partner's account.
 */
import { randomInt } from 'node:crypto';
import { dammCheckDigit } from '@platform/crypto';

const BODY_DIGITS = 10;

export function newAccountReference(): string {
  let body = String(1 + randomInt(9));
  for (let i = 1; i < BODY_DIGITS; i += 1) body += String(randomInt(10));
  return `${body}${dammCheckDigit(body)}`;
}

/** Normalises what a payer typed (spaces, hyphens) and verifies the check digit. */
export function normaliseAccountReference(typed: string): string | null {
  const cleaned = typed.replace(/[\s-]/g, '');
  if (!/^[1-9]\d{10}$/.test(cleaned)) return null;
  return dammCheckDigit(cleaned) === 0 ? cleaned : null;
}
