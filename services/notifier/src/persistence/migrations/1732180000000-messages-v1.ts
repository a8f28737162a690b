import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every message sent to a person, one row per send request. The idempotency
 * key makes a retried request return the row it already made instead of
 * sending a second code. `recipient` holds the full address (the transport
 * needs it) and is never logged; the sandbox outbox shows it masked.
 */
export class MessagesV1Migration1732180000000 implements MigrationInterface {
  name = 'MessagesV1Migration1732180000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE messages (
        id uuid PRIMARY KEY,
        idempotency_key text NOT NULL CHECK (idempotency_key <> '' AND length(idempotency_key) <= 200),
        partner_id uuid NOT NULL,
        kind text NOT NULL CHECK (kind <> ''),
        recipient text NOT NULL CHECK (recipient <> ''),
        subject text NOT NULL,
        body text NOT NULL,
        transport text NOT NULL CHECK (transport IN ('sandbox', 'smtp')),
        status text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        sent_at timestamptz,
        CONSTRAINT messages_idempotency_key_unique UNIQUE (idempotency_key)
      )`);
    // The sandbox outbox lists one partner's messages, newest first.
    await queryRunner.query('CREATE INDEX messages_partner_created_idx ON messages (partner_id, created_at DESC)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE messages');
  }
}
