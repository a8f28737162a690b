import { randomUUID } from 'node:crypto';
import { AppError } from '@platform/errors';
import { Logger, maskEmail } from '@platform/logger';
import { claimIdempotently, DataSource, withTransaction } from '@platform/persistence';
import type { MailTransport } from '../../adapters/transport/mail-transport';
import { MessageRequest, parseMessageRequest } from '../../domain/message';
import { CODE_PLACEHOLDER, renderMessage } from '../../domain/templates';
import type { MessagesRepository, StoredMessage } from '../../persistence/messages.repository';

export interface SendMessageResult {
  messageId: string;
  maskedRecipient: string;
  replayed: boolean;
}

/**
 * Sends one message, exactly once per idempotency key (claimIdempotently). The row is written and
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
    const { resource, replayed } = await claimIdempotently<SentMessage>({
      requestHash: messageFingerprint(request),
      find: async () => fingerprinted(await this.repository.findByKey(this.dataSource.manager, request.idempotencyKey)),
      claim: async () =>
        (await this.insertAndDeliver(messageId, request, rendered))
          ? { messageId, recipient: request.recipient, kind: request.kind, requestHash: messageFingerprint(request) }
          : null,
    });
    if (replayed) {
      this.logger.info('message already sent; not sent again', { messageId: resource.messageId, kind: resource.kind });
    } else {
      this.logger.info('message sent', {
        messageId,
        kind: request.kind,
        to: maskEmail(request.recipient),
        transport: this.transport.name,
      });
    }
    return { messageId: resource.messageId, maskedRecipient: maskEmail(resource.recipient), replayed };
  }

  /**
   * The row and the transport call in one transaction; false when the key was
   * taken meanwhile (a concurrent insert of the key waits for the first
   * transaction and then finds its row).
   */
  private async insertAndDeliver(
    messageId: string,
    request: MessageRequest,
    rendered: { subject: string; body: string },
  ): Promise<boolean> {
    return withTransaction(this.dataSource, async (manager) => {
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
        code: this.transport.name === 'sandbox' ? (request.code ?? null) : null,
      });
      if (isNew) await this.deliver(messageId, request, rendered);
      return isNew;
    });
  }

  private async deliver(
    messageId: string,
    request: MessageRequest,
    rendered: { subject: string; body: string },
  ): Promise<void> {
    try {
      await this.transport.deliver({
        messageId,
        to: request.recipient,
        subject: rendered.subject,
        text: rendered.body,
      });
    } catch (error) {
      // The transport's error may quote the message; only its class and code are logged.
      const { name, code } = error as { name?: string; code?: string };
      this.logger.warn('transport refused a message', {
        messageId,
        kind: request.kind,
        transport: this.transport.name,
        error: { name, code },
      });
      throw new AppError('SERVICE_UNAVAILABLE');
    }
  }
}

/**
 * A key names one message: reused for another partner, kind or subject it is
 * a caller bug (IDEMPOTENCY_KEY_REUSED). Only these are compared, not the
 * variables or the code, so a retried call is a repeat; messages keep no
 * request hash, so the fingerprint is made from the stored columns.
 */
function messageFingerprint(message: { partnerId: string; kind: string; subjectId: string | null }): string {
  return JSON.stringify([message.partnerId, message.kind, message.subjectId]);
}

/** What a send answers, whether it sent now or found the key already sent. */
interface SentMessage {
  messageId: string;
  recipient: string;
  kind: string;
  requestHash: string;
}

function fingerprinted(message: StoredMessage | null): SentMessage | null {
  return (
    message && {
      messageId: message.messageId,
      recipient: message.recipient,
      kind: message.kind,
      requestHash: messageFingerprint(message),
    }
  );
}
