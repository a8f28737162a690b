import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What deposit-mode sell orders expect: trading registers each order (and later
 * its deposit's hash) here, so the ledger attributes inbound USDT deposits from
 * its own rows instead of asking trading. One row per order; a partner's hash
 * names at most one order. The partial index serves the hold rule (a partner's
 * open expectations still without a hash).
 */
export class LedgerUsdtDepositExpectationsMigration1796100000000 implements MigrationInterface {
  name = 'LedgerUsdtDepositExpectationsMigration1796100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE usdt_deposit_expectations (
        order_id uuid PRIMARY KEY,
        partner_id uuid NOT NULL,
        send_before timestamptz NOT NULL,
        tx_hash text CHECK (tx_hash ~ '^[0-9a-f]{64}$'),
        created_at timestamptz NOT NULL DEFAULT now(),
        hash_registered_at timestamptz,
        CHECK ((tx_hash IS NULL) = (hash_registered_at IS NULL)),
        UNIQUE (partner_id, tx_hash)
      );
      CREATE INDEX usdt_deposit_expectations_unhashed_idx ON usdt_deposit_expectations (partner_id, send_before)
        WHERE tx_hash IS NULL;
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE usdt_deposit_expectations;');
  }
}
