import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * KES transfers and their confirmation codes.
 * - confirmations: the code only as an HMAC (code_hash); attempts and resends
 *   bounded by CHECKs, so a counting bug cannot exceed them.
 * - transfers: the idempotency key is claimed by a unique index per partner
 *   (a concurrent replay loses the insert, never a second transfer).
 *   status 'creating' is internal (the create is still running its checks);
 *   next_action_at is the durable timer (an abandoned create, a code expiry),
 *   claimed FOR UPDATE SKIP LOCKED by any replica.
 * - payout_instructions now also carry transfers: exactly one of order_id and
 *   transfer_id; the destination of a transfer lives on the transfer.
 */
export class TransfersMigration1732700000000 implements MigrationInterface {
  name = 'TransfersMigration1732700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE confirmations (
        confirmation_id uuid PRIMARY KEY,
        partner_id uuid NOT NULL,
        subject_type text NOT NULL CHECK (subject_type IN ('transfer', 'usdt_send', 'transfer_batch')),
        subject_id uuid NOT NULL,
        code_hash text NOT NULL,
        delivered_to text NOT NULL,
        status text NOT NULL CHECK (status IN ('live', 'used', 'locked', 'expired')),
        attempts integer NOT NULL DEFAULT 0 CHECK (attempts BETWEEN 0 AND 5),
        resends integer NOT NULL DEFAULT 0 CHECK (resends BETWEEN 0 AND 4),
        expires_at timestamptz NOT NULL,
        resend_available_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        verified_at timestamptz
      )`);
    await queryRunner.query(`
      CREATE TABLE transfers (
        transfer_id uuid PRIMARY KEY,
        partner_id uuid NOT NULL,
        idempotency_key text NOT NULL,
        request_hash text NOT NULL,
        partner_reference text NOT NULL,
        rail text NOT NULL,
        account_number text NOT NULL,
        account_name text NOT NULL,
        bank_code text,
        amount_kes numeric(20, 2) NOT NULL CHECK (amount_kes > 0),
        fee_kes numeric(20, 2) NOT NULL CHECK (fee_kes >= 0),
        status text NOT NULL CHECK (status IN ('creating', 'awaiting_confirmation', 'confirmed', 'settled', 'failed', 'expired')),
        name_verification text NOT NULL,
        verified_account_name text,
        failure_code text,
        confirmation_id uuid REFERENCES confirmations (confirmation_id),
        kes_account_id uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        confirmed_at timestamptz,
        settled_at timestamptz,
        completed_at timestamptz,
        next_action_at timestamptz,
        CHECK ((status = 'failed') = (failure_code IS NOT NULL))
      )`);
    await queryRunner.query(
      'CREATE UNIQUE INDEX transfers_idempotency_key_idx ON transfers (partner_id, idempotency_key)',
    );
    await queryRunner.query(
      'CREATE INDEX transfers_due_idx ON transfers (next_action_at) WHERE next_action_at IS NOT NULL',
    );
    await queryRunner.query('CREATE INDEX transfers_confirmation_idx ON transfers (confirmation_id)');
    await queryRunner.query(
      'ALTER TABLE payout_instructions ALTER COLUMN order_id DROP NOT NULL, ALTER COLUMN payout_destination_id DROP NOT NULL',
    );
    await queryRunner.query(
      'ALTER TABLE payout_instructions ADD COLUMN transfer_id uuid UNIQUE REFERENCES transfers (transfer_id)',
    );
    await queryRunner.query(`ALTER TABLE payout_instructions ADD CONSTRAINT payout_instructions_one_source
      CHECK ((transfer_id IS NULL) = (order_id IS NOT NULL AND payout_destination_id IS NOT NULL))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DELETE FROM payout_instructions WHERE transfer_id IS NOT NULL');
    await queryRunner.query(
      'ALTER TABLE payout_instructions DROP CONSTRAINT payout_instructions_one_source, DROP COLUMN transfer_id',
    );
    await queryRunner.query(
      'ALTER TABLE payout_instructions ALTER COLUMN order_id SET NOT NULL, ALTER COLUMN payout_destination_id SET NOT NULL',
    );
    await queryRunner.query('DROP TABLE transfers');
    await queryRunner.query('DROP TABLE confirmations');
  }
}
