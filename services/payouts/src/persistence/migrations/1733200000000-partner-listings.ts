import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A partner's USDT sends, transfer batches and mobile-money prompts newest
 * first (GET /v1/usdt/sends, GET /v1/transfers/batch, GET
 * /v1/funding/mobile-money-push): one index walk per page, whatever the
 * partner's history, in the order of the keyset (created_at, then id, both
 * descending). Built CONCURRENTLY, outside a transaction, so a deploy onto
 * large tables does not block writes.
 */
export class PartnerListingsMigration1733200000000 implements MigrationInterface {
  name = 'PartnerListingsMigration1733200000000';
  transaction = false as const;

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE INDEX CONCURRENTLY IF NOT EXISTS usdt_sends_partner_created_idx ON usdt_sends (partner_id, created_at DESC, send_id DESC)',
    );
    await queryRunner.query(
      'CREATE INDEX CONCURRENTLY IF NOT EXISTS transfer_batches_partner_created_idx ON transfer_batches (partner_id, created_at DESC, batch_id DESC)',
    );
    await queryRunner.query(
      'CREATE INDEX CONCURRENTLY IF NOT EXISTS mobile_money_pushes_partner_created_idx ON mobile_money_pushes (partner_id, created_at DESC, push_id DESC)',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX CONCURRENTLY IF EXISTS mobile_money_pushes_partner_created_idx');
    await queryRunner.query('DROP INDEX CONCURRENTLY IF EXISTS transfer_batches_partner_created_idx');
    await queryRunner.query('DROP INDEX CONCURRENTLY IF EXISTS usdt_sends_partner_created_idx');
  }
}
