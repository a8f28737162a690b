/**
 * Rules of the mobile-money funding prompt that need no I/O: the amount
 * limits, the prompt's lifetime and what an answer does to a push in each
 * status. The contract shows no limits; these are a mobile-money wallet's
 * (a single M-Pesa transaction is at most KES 250,000), so a prompt the
 * payer could never approve is refused at once.
 */
import { Big, parsePositiveAmount } from '@platform/money';
// The partner contract states the statuses; what an answer does to each is payouts' own.
import { MOBILE_MONEY_PUSH_STATUSES, type MobileMoneyPushStatus } from '@platform/openapi/dist/contract/statuses';

export const PUSH_AMOUNT_KES_MIN = '1.00';
export const PUSH_AMOUNT_KES_MAX = '250000.00';

export const PUSH_STATUSES = MOBILE_MONEY_PUSH_STATUSES;
export type PushStatus = MobileMoneyPushStatus;

/** The amount as a Big when it is a KES amount within the push limits, else null. */
export function parsePushAmountKes(value: string): Big | null {
  const amount = parsePositiveAmount(value, 'KES');
  if (!amount || amount.lt(PUSH_AMOUNT_KES_MIN) || amount.gt(PUSH_AMOUNT_KES_MAX)) return null;
  return amount;
}

export type Answer = 'approve' | 'decline';

/**
 * What an answer does: a pending push inside its lifetime takes the answer;
 * a pending push past it expires (the payer's handset no longer shows it);
 * anything else keeps its status (the first answer stands).
 */
export function applyAnswer(status: PushStatus, expiresAt: Date, now: Date, answer: Answer): PushStatus {
  if (status !== 'pending') return status;
  if (now.getTime() >= expiresAt.getTime()) return 'expired';
  return answer === 'approve' ? 'approved' : 'declined';
}
