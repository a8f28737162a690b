/**
 * Pay-in buy orders:
 * the order's payment reference and which payment funds the order. Pure.
 *
 * Payment rules: only a credit that carried the order's payment reference and
 * was received (by the bank) strictly before payBefore counts. The earliest
 * such credit of at least kesTotalAmount funds the order; any excess stays in
 * the partner's KES balance. A short credit funds nothing (payments are never
 * added together) and stays in the balance; so does any credit received at or
 * after payBefore. The ledger always credits the partner's KES account.
 */
import { randomInt } from 'node:crypto';
import { dammCheckDigit } from '@platform/crypto';
import { Big } from '@platform/money';

const BODY_RANDOM_DIGITS = 10;

/**
 * 12 digits: 9, 10 random digits (node:crypto), a Damm check digit. Never an
 * 11-digit partner paybill reference; a single mistyped digit or swapped
 * neighbours fail the check (the ledger then credits suspense).
 */
export function newPaymentReference(): string {
  let body = '9';
  for (let i = 0; i < BODY_RANDOM_DIGITS; i += 1) body += String(randomInt(10));
  return `${body}${dammCheckDigit(body)}`;
}

export function isPaymentReference(value: string): boolean {
  return /^9\d{11}$/.test(value) && dammCheckDigit(value) === 0;
}

export interface ReferencedCredit {
  bankTransactionId: string;
  railReference: string | null;
  amountKes: string;
  receivedAt: string;
}

/** The credit that funds the order, or null (none yet, all short, or all late). */
export function fundingCredit(
  credits: readonly ReferencedCredit[],
  kesTotalAmount: string,
  payBefore: Date,
): ReferencedCredit | null {
  const inTime = credits
    .filter((credit) => Date.parse(credit.receivedAt) < payBefore.getTime())
    .sort((a, b) => Date.parse(a.receivedAt) - Date.parse(b.receivedAt));
  return inTime.find((credit) => new Big(credit.amountKes).gte(kesTotalAmount)) ?? null;
}

/** When an awaiting order is looked at again: after the poll interval, but never later than its window's end. */
export function nextPaymentCheck(now: Date, pollMs: number, payBefore: Date): Date {
  return new Date(Math.min(now.getTime() + pollMs, payBefore.getTime()));
}
