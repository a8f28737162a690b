/**
 * Confirmation codes. A code is 6
 * digits from node:crypto, stored only as HMAC-SHA256 under a server key over
 * `<confirmationId>:<issue>:<code>`, so a stolen table cannot be brute-forced
 * offline and equal codes never share a hash. Five wrong codes per
 * confirmation (across resends) lock it; resends follow the ladder below.
 */
import { createHmac } from 'node:crypto';
import { constantTimeEqual, randomNumericCode } from '@platform/crypto';

export const CODE_DIGITS = 6;
export const CODE_PATTERN = /^\d{6}$/;
export const CONFIRMATION_ATTEMPTS_MAX = 5;
/** Cooldown before resend n+1, in seconds, before SANDBOX_TIME_SCALE; after the last, CONFIRMATION_RESEND_LIMIT. */
export const RESEND_LADDER_SECONDS = [30, 60, 120, 300] as const;
export const RESENDS_MAX = RESEND_LADDER_SECONDS.length;

/** live: awaiting the code. used: confirmed. locked: five wrong codes. expired: its window passed. */
export type ConfirmationStatus = 'live' | 'used' | 'locked' | 'expired';
export type SubjectType = 'transfer' | 'usdt_send' | 'transfer_batch';

export interface Confirmation {
  confirmationId: string;
  partnerId: string;
  subjectType: SubjectType;
  subjectId: string;
  codeHash: string;
  deliveredTo: string;
  status: ConfirmationStatus;
  attempts: number;
  /** Resends that stand (a resend whose code was not sent is given back): the ladder and the limit count these. */
  resends: number;
  /** The issue of the code in codeHash (0: the first code). */
  codeIssue: number;
  /** The highest issue ever given a code, sent or not: the next resend takes the one after. */
  lastIssue: number;
  expiresAt: Date;
  resendAvailableAt: Date;
  createdAt: Date;
  verifiedAt: Date | null;
}

export function generateCode(): string {
  return randomNumericCode(CODE_DIGITS);
}

export function hashCode(keyHex: string, confirmationId: string, issue: number, code: string): string {
  return createHmac('sha256', Buffer.from(keyHex, 'hex'))
    .update(`${confirmationId}:${issue}:${code}`, 'utf8')
    .digest('hex');
}

export function codeMatches(keyHex: string, confirmation: Confirmation, code: string): boolean {
  return constantTimeEqual(
    hashCode(keyHex, confirmation.confirmationId, confirmation.codeIssue, code),
    confirmation.codeHash,
  );
}

/** The cooldown after resend `resends` (0 = the first code), scaled. */
export function resendCooldownMs(resends: number, timeScale: number): number {
  const seconds = RESEND_LADDER_SECONDS[Math.min(resends, RESENDS_MAX - 1)];
  return Math.max(1, Math.round(seconds * 1000 * timeScale));
}

export type AttemptRefusal = 'CONFIRMATION_ALREADY_USED' | 'CONFIRMATION_LOCKED' | 'CONFIRMATION_EXPIRED';

/** Why a code cannot be tried at all, or null. Locked stays locked even for the right code. */
export function refusalBeforeAttempt(confirmation: Confirmation, now: Date): AttemptRefusal | null {
  if (confirmation.status === 'used') return 'CONFIRMATION_ALREADY_USED';
  if (confirmation.status === 'locked') return 'CONFIRMATION_LOCKED';
  if (confirmation.status === 'expired' || confirmation.expiresAt.getTime() <= now.getTime())
    return 'CONFIRMATION_EXPIRED';
  return null;
}

export type ResendDecision =
  | { refusal: AttemptRefusal | 'CONFIRMATION_RESEND_LIMIT' }
  | { refusal: 'CONFIRMATION_RESEND_COOLDOWN'; retryAfterSeconds: number }
  | { refusal: null };

/** Whether a resend may go out now (limit before cooldown: after the last rung nothing waits). */
export function decideResend(confirmation: Confirmation, now: Date): ResendDecision {
  const before = refusalBeforeAttempt(confirmation, now);
  if (before) return { refusal: before };
  if (confirmation.resends >= RESENDS_MAX) return { refusal: 'CONFIRMATION_RESEND_LIMIT' };
  const waitMs = confirmation.resendAvailableAt.getTime() - now.getTime();
  if (waitMs > 0)
    return { refusal: 'CONFIRMATION_RESEND_COOLDOWN', retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  return { refusal: null };
}
