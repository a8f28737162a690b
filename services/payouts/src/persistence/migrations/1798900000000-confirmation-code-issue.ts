import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * confirmations.code_issue and last_issue: a resend's code is sent after the
 * transaction that records it, and a send that fails gives the resend back
 * (the previous code, expiry and cooldown again). The issue numbers the
 * notifier's idempotency key, and a failed send may still have reached the
 * notifier, so an issue is never handed out twice: last_issue is the highest
 * ever given, code_issue the one of the code in code_hash (the HMAC's input).
 * `resends` keeps counting only the resends that stand, for the ladder and the
 * limit. Until now every issue was `resends`, so both start from it. Columns
 * with a constant default (no rewrite); the check is added NOT VALID and then
 * validated, so writes are not blocked while existing rows are read.
 *
 * A replica still running the previous code during a rolling restart hashes
 * and reissues by `resends`: the two agree until a send fails on a replica
 * with this migration's code.
 */
export class ConfirmationCodeIssueMigration1798900000000 implements MigrationInterface {
  name = 'ConfirmationCodeIssueMigration1798900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE confirmations ADD COLUMN code_issue integer NOT NULL DEFAULT 0,
         ADD COLUMN last_issue integer NOT NULL DEFAULT 0`,
    );
    await queryRunner.query('UPDATE confirmations SET code_issue = resends, last_issue = resends WHERE resends > 0');
    await queryRunner.query(
      `ALTER TABLE confirmations ADD CONSTRAINT confirmations_code_issue_handed_out
         CHECK (code_issue >= 0 AND code_issue <= last_issue) NOT VALID`,
    );
    await queryRunner.query('ALTER TABLE confirmations VALIDATE CONSTRAINT confirmations_code_issue_handed_out');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE confirmations DROP COLUMN code_issue, DROP COLUMN last_issue');
  }
}
