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
 * with a constant default (no rewrite); the backfill touches only the
 * confirmations that were resent. The migration is one transaction, so
 * confirmations wait on the ADD COLUMN's lock until it commits.
 *
 * During a rolling restart a replica of the release before still resends by
 * writing code_hash and `resends` alone, hashing with `resends` as the issue.
 * A trigger keeps the issue with its code for those writes (code_issue =
 * resends, last_issue never lowered), so a new replica matches and numbers the
 * next issue after it. This release always writes code_issue with code_hash,
 * so the trigger never fires for it. What stays different until the rollout
 * ends: once a new replica gave a failed send back and then resent,
 * code_issue is ahead of `resends`, and an old replica refuses that code; the
 * trigger can go in a later release, once no replica of the release before
 * can run.
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
    await queryRunner.query(`
      CREATE FUNCTION payouts_confirmation_issue_follows_resends() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.code_hash IS DISTINCT FROM OLD.code_hash AND NEW.code_issue = OLD.code_issue THEN
          NEW.code_issue := NEW.resends;
          NEW.last_issue := GREATEST(OLD.last_issue, NEW.resends);
        END IF;
        RETURN NEW;
      END $$`);
    await queryRunner.query(
      `CREATE TRIGGER confirmations_issue_follows_resends BEFORE UPDATE OF code_hash ON confirmations
         FOR EACH ROW EXECUTE FUNCTION payouts_confirmation_issue_follows_resends()`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER confirmations_issue_follows_resends ON confirmations');
    await queryRunner.query('DROP FUNCTION payouts_confirmation_issue_follows_resends()');
    await queryRunner.query('ALTER TABLE confirmations DROP COLUMN code_issue, DROP COLUMN last_issue');
  }
}
