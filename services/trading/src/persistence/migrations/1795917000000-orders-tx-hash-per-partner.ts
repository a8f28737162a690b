import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A transaction hash is unique per partner, no longer across all partners.
 *
 * A TRON hash is public the moment it is broadcast. With one global unique,
 * any partner could attach another partner's incoming hash to a sell order of
 * its own first, and the real owner's attach was refused: its order could only
 * expire. A deposit lands on one partner's address, so it can only ever fund
 * that partner's order: the hash needs to be unique only among the orders of
 * one partner, and every lookup by hash names the partner.
 */
export class OrdersTxHashPerPartnerMigration1795917000000 implements MigrationInterface {
  name = 'OrdersTxHashPerPartnerMigration1795917000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE orders ADD CONSTRAINT orders_partner_tx_hash_key UNIQUE (partner_id, tx_hash)',
    );
    await queryRunner.query('ALTER TABLE orders DROP CONSTRAINT orders_tx_hash_key');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // Fails, as it should, once two partners hold the same hash: the global rule cannot be restored without choosing.
    await queryRunner.query('ALTER TABLE orders ADD CONSTRAINT orders_tx_hash_key UNIQUE (tx_hash)');
    await queryRunner.query('ALTER TABLE orders DROP CONSTRAINT orders_partner_tx_hash_key');
  }
}
