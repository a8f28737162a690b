/**
 * Sends a confirmation code to the partner's code recipient through the
 * notifier. The idempotency key is the confirmation id and the issue number,
 * so a retried call never sends twice and a resend always sends.
 */
import { AppError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import type { NotifierApi } from './peers';

export interface ConfirmationCodeMessage {
  confirmationId: string;
  issue: number;
  partnerId: string;
  recipient: string;
  code: string;
  kind: 'transfer_confirmation' | 'usdt_send_confirmation' | 'batch_confirmation';
  subjectType: string;
  subjectId: string;
  variables: Record<string, string>;
}

export class ConfirmationCodeSender {
  constructor(
    private readonly client: NotifierApi,
    private readonly logger: Logger,
  ) {}

  async send(message: ConfirmationCodeMessage): Promise<void> {
    try {
      await this.client.sendMessage({
        idempotencyKey: `confirmation:${message.confirmationId}:${message.issue}`,
        partnerId: message.partnerId,
        kind: message.kind,
        recipient: message.recipient,
        subjectType: message.subjectType,
        subjectId: message.subjectId,
        code: message.code,
        variables: message.variables,
      });
    } catch (error) {
      const appError = error instanceof AppError ? error : new AppError('INTERNAL_ERROR');
      if (appError.code === 'SERVICE_UNAVAILABLE') throw appError;
      // Any other refusal is a contract mismatch between the two services: a bug, not the partner's doing.
      this.logger.error('notifier refused a confirmation message', {
        confirmationId: message.confirmationId,
        refusal: appError.code,
      });
      throw new AppError('INTERNAL_ERROR');
    }
  }
}
