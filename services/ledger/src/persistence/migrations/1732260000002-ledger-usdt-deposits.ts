import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Inbound USDT deposits, exactly once per (chain, tx_hash). A held deposit's
 * row is its own durable timer: when hold_until passes, the sweeper of any
 * replica credits it to the partner's balance.
 */
export class LedgerUsdtDepositsMigration1732260000002 implements MigrationInterface {
  name = 'LedgerUsdtDepositsMigration1732260000002';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE usdt_deposits (
        id uuid PRIMARY KEY,
        chain text NOT NULL CHECK (chain = 'tron'),
        tx_hash text NOT NULL CHECK (tx_hash ~ '^[0-9a-f]{64}$'),
        to_address text NOT NULL,
        partner_id uuid,
        amount_usdt numeric(30, 6) NOT NULL CHECK (amount_usdt > 0),
        status text NOT NULL CHECK (status IN ('credited', 'held_for_attribution', 'claimed', 'unattributed')),
        hold_until timestamptz,
        order_id uuid,
        received_at timestamptz NOT NULL,
        booking_entry_id uuid NOT NULL REFERENCES entries (id),
        release_entry_id uuid REFERENCES entries (id),
        credited_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (chain, tx_hash),
        CHECK ((status = 'held_for_attribution') = (hold_until IS NOT NULL)),
        CHECK ((status = 'claimed') = (order_id IS NOT NULL)),
        CHECK ((status = 'unattributed') = (partner_id IS NULL))
      );
      CREATE INDEX usdt_deposits_held_idx ON usdt_deposits (hold_until) WHERE status = 'held_for_attribution';
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE usdt_deposits;');
  }
}
