import { validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import { maskEmail } from '@platform/logger';
import type { DataSource } from '@platform/persistence';
import type { MessagesRepository } from '../../persistence/messages.repository';

export const OUTBOX_ENTRIES_DEFAULT = 50;
export const OUTBOX_ENTRIES_MAX = 100;

export interface OutboxEntry {
  id: string;
  kind: string;
  to: string;
  subject: string;
  code: string | null;
  subjectType: string;
  subjectId: string | null;
  createdAt: string;
}

/** The sandbox outbox of one partner, newest first: addresses masked, codes in clear (sandbox only). */
export class ListSandboxOutboxUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: MessagesRepository,
  ) {}

  async execute(command: { partnerId: string; limit: number }): Promise<OutboxEntry[]> {
    if (!isUuid(command.partnerId)) throw validationFailed(['partnerId']);
    const limit = command.limit === 0 ? OUTBOX_ENTRIES_DEFAULT : Math.min(command.limit, OUTBOX_ENTRIES_MAX);
    const messages = await this.repository.listSandbox(this.dataSource.manager, command.partnerId, limit);
    return messages.map((message) => ({
      id: message.messageId,
      kind: message.kind,
      to: maskEmail(message.recipient),
      subject: message.subject,
      code: message.code,
      subjectType: message.subjectType,
      subjectId: message.subjectId,
      createdAt: message.createdAt.toISOString(),
    }));
  }
}
