/**
 * Notices of administrator changes: every administrator active at the change
 * (the one added, and the one removed, included) is e-mailed that an
 * administrator was added or removed. A notice names the administrator and the
 * time, and never carries a code or a secret (the notifier refuses a code on
 * these kinds). Notices are written with the change and sent afterwards,
 * retried with a growing delay until the notifier takes them.
 */

export type AdminChange = 'added' | 'removed';

export interface AdminNotice {
  noticeId: string;
  partnerId: string;
  change: AdminChange;
  /** Sends tried so far, this one included. */
  attempts: number;
  changedAt: Date;
  /** The administrator added or removed. */
  admin: { adminId: string; name: string; email: string; receivesCodesFrom: Date };
  /** Full address of the administrator told: for the notifier only, never logged. */
  recipientEmail: string;
  /** Only on a claimed notice: its lease token (the timer value the claim wrote; @platform/persistence lease.ts). */
  leaseToken?: string;
}

/** How often a notice is tried before it is given up (with an alert): about three and a half days of retries. */
export const NOTICE_ATTEMPTS_MAX = 500;
const RETRY_DELAY_MS_FIRST = 5_000;
const RETRY_DELAY_MS_MAX = 10 * 60 * 1_000;

/** The wait before the next try after `attempts` failed ones: doubling from 5 s, at most 10 min. */
export function noticeRetryDelayMs(attempts: number): number {
  const doublings = Math.min(Math.max(attempts - 1, 0), 20);
  return Math.min(RETRY_DELAY_MS_FIRST * 2 ** doublings, RETRY_DELAY_MS_MAX);
}

/** One key per notice: a retried send never mails twice. */
export function noticeIdempotencyKey(noticeId: string): string {
  return `admin-notice:${noticeId}`;
}

export interface NoticeMessage {
  kind: 'administrator_added' | 'administrator_removed';
  variables: Record<string, string>;
}

/** The notifier message of a notice: its kind and its template variables (no code, ever). */
export function noticeMessage(notice: AdminNotice): NoticeMessage {
  const variables = {
    adminName: notice.admin.name,
    adminEmail: notice.admin.email,
    changedAt: notice.changedAt.toISOString(),
  };
  if (notice.change === 'removed') return { kind: 'administrator_removed', variables };
  return {
    kind: 'administrator_added',
    variables: { ...variables, receivesCodesFrom: notice.admin.receivesCodesFrom.toISOString() },
  };
}
