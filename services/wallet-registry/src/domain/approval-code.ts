/**
 * Wallet approval codes, which an administrator confirms by e-mail. A code
 * is 6 digits from node:crypto, stored only as HMAC-SHA256 under a server key
 * over `<codeId>:<code>` (so a stolen table cannot be brute-forced offline, and
 * equal codes never share a hash). It lapses at its expiry, when its
 * administrator is removed, or on the fifth wrong attempt, which cancels it.
 */
import { createHmac } from 'node:crypto';
import { constantTimeEqual, randomNumericCode } from '@platform/crypto';

export const CODE_DIGITS = 6;
export const CODE_ATTEMPTS_MAX = 5;
export const OTP_PATTERN = /^\d{6}$/;

/**
 * live: awaiting the code. used: confirmed. cancelled: five wrong attempts.
 * lapsed: its administrator was removed. superseded: replaced by a fresh code
 * (only ever after it expired, was cancelled or lapsed).
 */
export type CodeStatus = 'live' | 'used' | 'cancelled' | 'lapsed' | 'superseded';

export interface ApprovalCode {
  codeId: string;
  walletId: string;
  adminId: string;
  status: CodeStatus;
  attempts: number;
  expiresAt: Date;
}

export function generateCode(): string {
  return randomNumericCode(CODE_DIGITS);
}

export function hashCode(keyHex: string, codeId: string, code: string): string {
  return createHmac('sha256', Buffer.from(keyHex, 'hex')).update(`${codeId}:${code}`, 'utf8').digest('hex');
}

export function codeMatches(keyHex: string, code: ApprovalCode & { codeHash: string }, otp: string): boolean {
  return constantTimeEqual(hashCode(keyHex, code.codeId, otp), code.codeHash);
}

/** A live code that has not reached its expiry. */
export function isUsable(code: ApprovalCode, now: Date): boolean {
  return code.status === 'live' && code.expiresAt.getTime() > now.getTime();
}

export type ConfirmRefusal = 'WALLET_CODE_LOCKED' | 'WALLET_CODE_EXPIRED';

/**
 * Why a code cannot be tried at all, or null when it can. Cancelled (five
 * wrong attempts) is LOCKED, for every later attempt, even the right code;
 * expired, lapsed or superseded is EXPIRED.
 */
export function refusalBeforeAttempt(code: ApprovalCode | null, now: Date): ConfirmRefusal | null {
  if (!code) return 'WALLET_CODE_EXPIRED';
  if (code.status === 'cancelled') return 'WALLET_CODE_LOCKED';
  if (!isUsable(code, now)) return 'WALLET_CODE_EXPIRED';
  return null;
}

/** What a re-registration of an existing wallet does (one of three outcomes). */
export type ReRegistration = 'unchanged' | 'return_live_code' | 'issue_fresh_code';

export function decideReRegistration(walletStatus: string, latestCode: ApprovalCode | null, now: Date): ReRegistration {
  if (walletStatus !== 'pending_partner_approval') return 'unchanged';
  return latestCode && isUsable(latestCode, now) ? 'return_live_code' : 'issue_fresh_code';
}
