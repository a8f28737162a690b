import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Payout instructions (the KES proceeds of sell orders today). next_attempt_at
 * is the durable timer: every replica claims due rows FOR UPDATE SKIP LOCKED
 * (leased by moving the timer ahead), so each step runs once and survives
 * restarts; null once the instruction is final.
 */
export class PayoutInstructionsMigration1732600000000 implements MigrationInterface {
  name = 'PayoutInstructionsMigration1732600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE payout_instructions (
        instruction_id uuid PRIMARY KEY,
        partner_id uuid NOT NULL,
        order_id uuid NOT NULL,
        payout_destination_id uuid NOT NULL,
        amount_kes numeric(20, 2) NOT NULL CHECK (amount_kes > 0),
        status text NOT NULL CHECK (status IN ('pending', 'submitted', 'settled', 'failed')),
        failure_code text,
        provider_reference text,
        submitted_at timestamptz,
        next_attempt_at timestamptz,
        attempts integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz,
        CHECK ((status = 'failed') = (failure_code IS NOT NULL))
      )`);
    await queryRunner.query(
      'CREATE INDEX payout_instructions_due_idx ON payout_instructions (next_attempt_at) WHERE next_attempt_at IS NOT NULL',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE payout_instructions');
  }
}
