/**
 * A pay-in buy order's payment reference: what the payer types as
 * the paybill account number for that one order. 12 digits: a leading 9, 10
 * random digits and a Damm check digit. Twelve digits can never equal an
 * 11-digit partner account reference, and the check digit sends a mistyped
 * one to suspense instead of to another order. Trading generates it; the
 * ledger only accepts this shape.
 */
import { dammCheckDigit } from '@platform/crypto';

export const PAYMENT_REFERENCE = /^9\d{11}$/;

/** Normalises what a payer typed (spaces, hyphens): the reference when it has the shape and a valid check digit, else null. */
export function normalisePaymentReference(typed: string): string | null {
  const cleaned = typed.replace(/[\s-]/g, '');
  if (!PAYMENT_REFERENCE.test(cleaned)) return null;
  return dammCheckDigit(cleaned) === 0 ? cleaned : null;
}
