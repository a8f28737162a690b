/**
 * Pay-in buy orders (contract decisions section 4, documented for partners):
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
import { Big } from '@platform/money';

const BODY_RANDOM_DIGITS = 10;

// The Damm quasigroup of order 10 (as the ledger's paybill references use).
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

export function dammDigit(digits: string): number {
  let interim = 0;
  for (const digit of digits) interim = DAMM_TABLE[interim]![Number(digit)]!;
  return interim;
}

/**
 * 12 digits: 9, 10 random digits (node:crypto), a Damm check digit. Never an
 * 11-digit partner paybill reference; a single mistyped digit or swapped
 * neighbours fail the check (the ledger then credits suspense).
 */
export function newPaymentReference(): string {
  let body = '9';
  for (let i = 0; i < BODY_RANDOM_DIGITS; i += 1) body += String(randomInt(10));
  return `${body}${dammDigit(body)}`;
}

export function isPaymentReference(value: string): boolean {
  return /^9\d{11}$/.test(value) && dammDigit(value) === 0;
}

export interface ReferencedCredit {
  bankTransactionId: string;
  railReference: string | null;
  amountKes: string;
  receivedAt: string;
}

/** The credit that funds the order, or null (none yet, all short, or all late). */
export function fundingCredit(credits: readonly ReferencedCredit[], kesTotalAmount: string, payBefore: Date): ReferencedCredit | null {
  const inTime = credits
    .filter((credit) => Date.parse(credit.receivedAt) < payBefore.getTime())
    .sort((a, b) => Date.parse(a.receivedAt) - Date.parse(b.receivedAt));
  return inTime.find((credit) => new Big(credit.amountKes).gte(kesTotalAmount)) ?? null;
}

/** When an awaiting order is looked at again: after the poll interval, but never later than its window's end. */
export function nextPaymentCheck(now: Date, pollMs: number, payBefore: Date): Date {
  return new Date(Math.min(now.getTime() + pollMs, payBefore.getTime()));
}
