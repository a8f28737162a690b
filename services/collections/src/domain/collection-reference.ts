/**
 * Collection references: what a payer types into the payment message, so
 * they must survive casual retyping. 10 random symbols and 1 check symbol
 * over a 31-symbol alphabet (Crockford base32 without Z: no I, L, O or U, so
 * nothing is confused with 1 or 0). The check is a weighted sum modulo the
 * prime 31 with distinct weights 1..11 (the check symbol weighs 1): every
 * single substitution changes the sum by d·w with 0 < d, w < 31, and every
 * adjacent transposition by (a − b)·1, neither of which is 0 modulo a prime,
 * so both are always caught.
 */
import { randomInt } from 'node:crypto';

export const REFERENCE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXY';
const MODULUS = REFERENCE_ALPHABET.length; // 31, a prime: the proof above needs it
export const REFERENCE_PAYLOAD_LENGTH = 10;
export const REFERENCE_LENGTH = REFERENCE_PAYLOAD_LENGTH + 1;

function symbolValue(symbol: string): number {
  return REFERENCE_ALPHABET.indexOf(symbol);
}

/** Weight of position `index` in a reference of REFERENCE_LENGTH: 11 down to 1 (the check symbol). */
function weight(index: number): number {
  return REFERENCE_LENGTH - index;
}

function checkSymbol(payload: string): string {
  let total = 0;
  for (let index = 0; index < payload.length; index += 1) total += weight(index) * symbolValue(payload[index]!);
  return REFERENCE_ALPHABET[(MODULUS - (total % MODULUS)) % MODULUS]!;
}

export function newCollectionReference(): string {
  let payload = '';
  for (let index = 0; index < REFERENCE_PAYLOAD_LENGTH; index += 1) payload += REFERENCE_ALPHABET[randomInt(MODULUS)];
  return payload + checkSymbol(payload);
}

/**
 * The canonical reference for what a person typed, or null when it is not
 * one: case, spaces and hyphens are ignored, and the look-alikes O→0 and
 * I/L→1 are read as Crockford reads them. A wrong check symbol is null.
 */
export function normaliseCollectionReference(typed: string): string | null {
  const canonical = typed.toUpperCase().replace(/[\s-]/g, '').replace(/O/g, '0').replace(/[IL]/g, '1');
  if (canonical.length !== REFERENCE_LENGTH) return null;
  if ([...canonical].some((symbol) => symbolValue(symbol) < 0)) return null;
  const payload = canonical.slice(0, REFERENCE_PAYLOAD_LENGTH);
  return checkSymbol(payload) === canonical[REFERENCE_PAYLOAD_LENGTH] ? canonical : null;
}
