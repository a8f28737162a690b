/**
 * Sends a notice of an administrator change through the notifier service over
 * gRPC, keyed by the notice's id: a retried send never mails twice. It carries
 * no code; the notifier refuses one on these kinds anyway.
 */
import { AppError } from '@platform/errors';
import type { PromiseClient } from '@platform/grpc';
import { notifier } from '@platform/proto';
import { AdminNotice, noticeIdempotencyKey, noticeMessage } from '../../domain/admin-notice';

export interface AdminNoticeSender {
  /** Resolves once the notifier has taken the notice; rejects with an AppError (SERVICE_UNAVAILABLE when unreachable). */
  send(notice: AdminNotice): Promise<void>;
  /** True while a send could get through now (the client's channel and breaker; no network); absent: unknown. */
  reachable?(): boolean;
}

export class GrpcAdminNoticeSender implements AdminNoticeSender {
  constructor(private readonly client: PromiseClient<typeof notifier.NotifierService>) {}

  reachable(): boolean {
    return this.client.reachable();
  }

  async send(notice: AdminNotice): Promise<void> {
    const message = noticeMessage(notice);
    try {
      await this.client.sendMessage({
        idempotencyKey: noticeIdempotencyKey(notice.noticeId),
        partnerId: notice.partnerId,
        kind: message.kind,
        recipient: notice.recipientEmail,
        subjectType: 'administrator',
        subjectId: notice.admin.adminId,
        variables: message.variables,
      });
    } catch (error) {
      throw error instanceof AppError ? error : new AppError('INTERNAL_ERROR');
    }
  }
}
