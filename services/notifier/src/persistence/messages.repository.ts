import { EntityManager, queryRows } from '@platform/persistence';

export interface StoredMessage {
  messageId: string;
  idempotencyKey: string;
  partnerId: string;
  kind: string;
  recipient: string;
  subject: string;
  subjectType: string;
  subjectId: string | null;
  code: string | null;
  createdAt: Date;
}

export interface NewMessage {
  messageId: string;
  idempotencyKey: string;
  partnerId: string;
  kind: string;
  recipient: string;
  subject: string;
  /** With the code replaced by a placeholder. */
  storedBody: string;
  transport: 'smtp' | 'sandbox';
  subjectType: string;
  subjectId: string;
  /** Sandbox only; null otherwise. */
  code: string | null;
}

interface MessageRow {
  id: string;
  idempotency_key: string;
  partner_id: string;
  kind: string;
  recipient: string;
  subject: string;
  subject_type: string;
  subject_id: string | null;
  code: string | null;
  created_at: Date;
}

const COLUMNS = 'id, idempotency_key, partner_id, kind, recipient, subject, subject_type, subject_id, code, created_at';

function toMessage(row: MessageRow): StoredMessage {
  return {
    messageId: row.id,
    idempotencyKey: row.idempotency_key,
    partnerId: row.partner_id,
    kind: row.kind,
    recipient: row.recipient,
    subject: row.subject,
    subjectType: row.subject_type,
    subjectId: row.subject_id,
    code: row.code,
    createdAt: row.created_at,
  };
}

export class MessagesRepository {
  /**
   * Inserts the message unless its idempotency key exists. A concurrent
   * insert of the same key waits for the first transaction, then finds its row.
   */
  async insertIfNew(manager: EntityManager, message: NewMessage): Promise<boolean> {
    const rows = await queryRows<{ id: string }>(
      manager,
      `INSERT INTO messages (id, idempotency_key, partner_id, kind, recipient, subject, body, transport, status, subject_type, subject_id, code, created_at, sent_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'sent', $9, $10, $11, clock_timestamp(), clock_timestamp())
       ON CONFLICT (idempotency_key) DO NOTHING RETURNING id`,
      [
        message.messageId,
        message.idempotencyKey,
        message.partnerId,
        message.kind,
        message.recipient,
        message.subject,
        message.storedBody,
        message.transport,
        message.subjectType,
        message.subjectId,
        message.code,
      ],
    );
    return rows.length === 1;
  }

  async findByKey(manager: EntityManager, idempotencyKey: string): Promise<StoredMessage | null> {
    const [row] = await queryRows<MessageRow>(manager, `SELECT ${COLUMNS} FROM messages WHERE idempotency_key = $1`, [
      idempotencyKey,
    ]);
    return row ? toMessage(row) : null;
  }

  /** The partner's sandbox messages, newest first. */
  async listSandbox(manager: EntityManager, partnerId: string, limit: number): Promise<StoredMessage[]> {
    const rows = await queryRows<MessageRow>(
      manager,
      `SELECT ${COLUMNS} FROM messages WHERE partner_id = $1 AND transport = 'sandbox' ORDER BY created_at DESC, id DESC LIMIT $2`,
      [partnerId, limit],
    );
    return rows.map(toMessage);
  }
}
