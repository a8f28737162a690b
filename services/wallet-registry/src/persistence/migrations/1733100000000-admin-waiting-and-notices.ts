import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The administrators' waiting period and the notices of administrator changes.
 * - `administrators.receives_codes_from`: from when the administrator may
 *   receive codes. Administrators already registered keep receiving them
 *   (their registration time), so nobody is locked out by the upgrade; the
 *   default covers rows a replica of the previous release inserts during a
 *   rolling deploy (no wait, as that release had none).
 * - `admin_notices`: one row per (change, administrator to tell), written in
 *   the transaction of the change (the outbox of these e-mails) and sent to
 *   the notifier afterwards, retried until it takes them.
 */
export class AdminWaitingAndNoticesMigration1733100000000 implements MigrationInterface {
  name = 'AdminWaitingAndNoticesMigration1733100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE administrators ADD COLUMN receives_codes_from timestamptz NOT NULL DEFAULT now()',
    );
    await queryRunner.query('UPDATE administrators SET receives_codes_from = created_at');

    await queryRunner.query(`
      CREATE TABLE admin_notices (
        id uuid PRIMARY KEY,
        partner_id uuid NOT NULL,
        change text NOT NULL CHECK (change IN ('added', 'removed')),
        admin_id uuid NOT NULL REFERENCES administrators (id),
        recipient_admin_id uuid NOT NULL REFERENCES administrators (id),
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
        attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
        next_attempt_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        last_error text CHECK (length(last_error) <= 200),
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        closed_at timestamptz,
        UNIQUE (admin_id, change, recipient_admin_id),
        CHECK ((status = 'pending') = (closed_at IS NULL))
      )`);
    await queryRunner.query(
      `CREATE INDEX admin_notices_due_idx ON admin_notices (next_attempt_at) WHERE status = 'pending'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE admin_notices');
    await queryRunner.query('ALTER TABLE administrators DROP COLUMN receives_codes_from');
  }
}
