import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * USDT sends. As transfers: the idempotency key claimed by a unique
 * index per partner, 'creating' internal, next_action_at the durable timer
 * (abandoned create, code expiry, release to the chain, chain status polls).
 * to_address is the wallet's address as checked at release.
 */
export class UsdtSendsMigration1732800000000 implements MigrationInterface {
  name = 'UsdtSendsMigration1732800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE usdt_sends (
        send_id uuid PRIMARY KEY,
        partner_id uuid NOT NULL,
        idempotency_key text NOT NULL,
        request_hash text NOT NULL,
        partner_reference text NOT NULL,
        destination_wallet_id uuid NOT NULL,
        usdt_amount numeric(30, 6) NOT NULL CHECK (usdt_amount > 0),
        status text NOT NULL CHECK (status IN ('creating', 'awaiting_confirmation', 'confirmed', 'settled', 'failed', 'expired')),
        failure_reason text,
        confirmation_id uuid REFERENCES confirmations (confirmation_id),
        to_address text,
        chain_submitted_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        confirmed_at timestamptz,
        settled_at timestamptz,
        completed_at timestamptz,
        next_action_at timestamptz,
        CHECK ((status = 'failed') = (failure_reason IS NOT NULL))
      )`);
    await queryRunner.query(
      'CREATE UNIQUE INDEX usdt_sends_idempotency_key_idx ON usdt_sends (partner_id, idempotency_key)',
    );
    await queryRunner.query(
      'CREATE INDEX usdt_sends_due_idx ON usdt_sends (next_action_at) WHERE next_action_at IS NOT NULL',
    );
    await queryRunner.query('CREATE INDEX usdt_sends_confirmation_idx ON usdt_sends (confirmation_id)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE usdt_sends');
  }
}
