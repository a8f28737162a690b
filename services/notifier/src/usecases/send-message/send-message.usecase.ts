import { randomUUID } from 'node:crypto';
import { AppError } from '@platform/errors';
import { Logger, maskEmail } from '@platform/logger';
import { DataSource, withTransaction } from '@platform/persistence';
import type { MailTransport } from '../../adapters/transport/mail-transport';
import { MessageRequest, parseMessageRequest } from '../../domain/message';
import { CODE_PLACEHOLDER, renderMessage } from '../../domain/templates';
import type { MessagesRepository } from '../../persistence/messages.repository';

export interface SendMessageResult {
  messageId: string;
  maskedRecipient: string;
  replayed: boolean;
}

/**
 * Sends one message, exactly once per idempotency key. The row is written and
 * the transport called in one transaction: when the transport fails, nothing
 * is stored and the caller gets SERVICE_UNAVAILABLE (a retry with the same key
 * sends then); when the key was already sent, the stored message is returned
 * and nothing is sent again. The code never reaches a log line.
 */
export class SendMessageUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: MessagesRepository,
    private readonly transport: MailTransport,
    private readonly logger: Logger,
  ) {}

  async execute(input: Omit<MessageRequest, 'kind'> & { kind: string }): Promise<SendMessageResult> {
    const request = parseMessageRequest(input);
    const rendered = renderMessage(request.kind, request.code, request.variables);
    const messageId = randomUUID();
    const maskedRecipient = maskEmail(request.recipient);
    const inserted = await withTransaction(this.dataSource, async (manager) => {
      const isNew = await this.repository.insertIfNew(manager, {
        messageId,
        idempotencyKey: request.idempotencyKey,
        partnerId: request.partnerId,
        kind: request.kind,
        recipient: request.recipient,
        subject: rendered.subject,
        storedBody: request.code ? rendered.body.split(request.code).join(CODE_PLACEHOLDER) : rendered.body,
        transport: this.transport.name,
        subjectType: request.subjectType,
        subjectId: request.subjectId,
        code: this.transport.name === 'sandbox' ? request.code ?? null : null,
      });
      if (isNew) await this.deliver(messageId, request, rendered);
      return isNew;
    });
    if (inserted) {
      this.logger.info('message sent', { messageId, kind: request.kind, to: maskedRecipient, transport: this.transport.name });
      return { messageId, maskedRecipient, replayed: false };
    }
    return this.replay(request);
  }

  private async deliver(messageId: string, request: MessageRequest, rendered: { subject: string; body: string }): Promise<void> {
    try {
      await this.transport.deliver({ messageId, to: request.recipient, subject: rendered.subject, text: rendered.body });
    } catch (error) {
      // The transport's error may quote the message; only its class and code are logged.
      const { name, code } = error as { name?: string; code?: string };
      this.logger.warn('transport refused a message', { messageId, kind: request.kind, transport: this.transport.name, error: { name, code } });
      throw new AppError('SERVICE_UNAVAILABLE');
    }
  }

  private async replay(request: MessageRequest): Promise<SendMessageResult> {
    const existing = await this.repository.findByKey(this.dataSource.manager, request.idempotencyKey);
    if (!existing) throw new Error('idempotency key conflict without a stored message');
    // A key names one message: reused for another partner, kind or subject it is a caller bug.
    if (existing.partnerId !== request.partnerId || existing.kind !== request.kind || existing.subjectId !== request.subjectId) {
      throw new AppError('IDEMPOTENCY_KEY_REUSED');
    }
    this.logger.info('message already sent; not sent again', { messageId: existing.messageId, kind: existing.kind });
    return { messageId: existing.messageId, maskedRecipient: maskEmail(existing.recipient), replayed: true };
  }
}
