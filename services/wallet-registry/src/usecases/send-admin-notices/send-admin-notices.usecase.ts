import { AppError } from '@platform/errors';
import { Logger, maskEmail } from '@platform/logger';
import type { DueRows, DueWork, EntityManager } from '@platform/persistence';
import type { AdminNoticeSender } from '../../adapters/notifier/admin-notice-sender';
import { AdminNotice, NOTICE_ATTEMPTS_MAX, noticeRetryDelayMs } from '../../domain/admin-notice';
import type { AdminNoticesRepository } from '../../persistence/admin-notices.repository';

/**
 * The sending side of the administrator-change notices, run by the durable
 * scheduler: each due notice goes to the notifier once (its idempotency key
 * makes a repeat harmless) and is marked sent; a failure is tried again after
 * a growing delay. Any refusal is retried, not only an unreachable notifier: a
 * notifier of the previous release refuses the notice kinds until it is
 * upgraded, and a security notice must not be lost to a deploy order. After
 * NOTICE_ATTEMPTS_MAX tries the notice is given up with an alert.
 */
export class SendAdminNoticesUseCase implements DueWork<AdminNotice> {
  readonly name = 'admin_notice';

  constructor(
    private readonly notices: AdminNoticesRepository,
    private readonly sender: AdminNoticeSender,
    private readonly logger: Logger,
  ) {}

  /** The notices due, as claimDue reads them. */
  get dueRows(): DueRows {
    return this.notices.dueRows;
  }

  claimDue(manager: EntityManager, limit: number, leaseMs: number): Promise<AdminNotice[]> {
    return this.notices.claimDue(manager, limit, leaseMs);
  }

  idOf(notice: AdminNotice): string {
    return notice.noticeId;
  }

  async run(notice: AdminNotice): Promise<void> {
    const context = {
      noticeId: notice.noticeId,
      change: notice.change,
      adminId: notice.admin.adminId,
      to: maskEmail(notice.recipientEmail),
      attempts: notice.attempts,
    };
    const refusal = await this.trySend(notice);
    if (refusal === null) {
      await this.notices.markSent(notice.noticeId);
      this.logger.info('administrator notice sent', context);
      return;
    }
    if (notice.attempts >= NOTICE_ATTEMPTS_MAX) {
      await this.notices.markFailed(notice.noticeId, refusal);
      this.logger.error('administrator notice given up', { ...context, refusal, alert: 'admin_notice_undelivered' });
      return;
    }
    const delayMs = noticeRetryDelayMs(notice.attempts);
    await this.notices.retryLater(notice.noticeId, delayMs, refusal);
    const details = { ...context, refusal, retryInMs: delayMs };
    // Unreachable is expected while the notifier restarts; any other refusal is a contract mismatch worth an operator's look.
    if (refusal === 'SERVICE_UNAVAILABLE') this.logger.warn('administrator notice not sent; retried later', details);
    else this.logger.error('administrator notice refused; retried later', details);
  }

  /** Null once the notifier took the notice, else the refusal's code. */
  private async trySend(notice: AdminNotice): Promise<string | null> {
    try {
      await this.sender.send(notice);
      return null;
    } catch (error) {
      return error instanceof AppError ? error.code : 'INTERNAL_ERROR';
    }
  }
}
