import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the sandbox outbox shows and the idempotency rule needs: the subject
 * the message is about, and the code, kept ONLY for sandbox messages (a CHECK
 * enforces it). Stored bodies carry a placeholder instead of the code, so a
 * production row never holds a usable code. A row exists only once its
 * transport accepted the message, so `status` is always `sent`.
 */
export class MessagesV2Migration1732190000000 implements MigrationInterface {
  name = 'MessagesV2Migration1732190000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE messages
        ADD COLUMN subject_type text NOT NULL DEFAULT '' CHECK (subject_type ~ '^[a-z_]{0,40}$'),
        ADD COLUMN subject_id uuid,
        ADD COLUMN code text CHECK (code ~ '^[0-9]{6}$'),
        ADD CONSTRAINT messages_code_sandbox_only CHECK (code IS NULL OR transport = 'sandbox'),
        ADD CONSTRAINT messages_status_known CHECK (status IN ('sent'))`);
    await queryRunner.query('ALTER TABLE messages ALTER COLUMN subject_type DROP DEFAULT');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE messages
        DROP CONSTRAINT messages_status_known,
        DROP CONSTRAINT messages_code_sandbox_only,
        DROP COLUMN code,
        DROP COLUMN subject_id,
        DROP COLUMN subject_type`);
  }
}
