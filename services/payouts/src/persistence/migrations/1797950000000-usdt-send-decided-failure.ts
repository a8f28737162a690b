import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * usdt_sends.decided_failure_reason: a failure found before the send reached
 * the chain (its wallet no longer active), committed by the step's owner
 * before the hold is given back, so no owner hands that send to the chain
 * afterwards and one whose lease passed voids nothing. The send stays
 * `confirmed` until the hold is back, then reads `failed` with its
 * failure_reason. A nullable column without a default (no rewrite); the check
 * is added NOT VALID and then validated, so the table is not locked against
 * writes while existing rows are read.
 */
export class UsdtSendDecidedFailureMigration1797950000000 implements MigrationInterface {
  name = 'UsdtSendDecidedFailureMigration1797950000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE usdt_sends ADD COLUMN decided_failure_reason text`);
    await queryRunner.query(
      `ALTER TABLE usdt_sends ADD CONSTRAINT usdt_sends_decided_failure_never_sent
         CHECK (decided_failure_reason IS NULL OR chain_submitted_at IS NULL) NOT VALID`,
    );
    await queryRunner.query(`ALTER TABLE usdt_sends VALIDATE CONSTRAINT usdt_sends_decided_failure_never_sent`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE usdt_sends DROP COLUMN decided_failure_reason`);
  }
}
