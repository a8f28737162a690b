import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A partner's transfers newest first (GET /v1/transfers): one index walk per
 * page, whatever the partner's history. Built CONCURRENTLY, outside a
 * transaction, so a deploy onto a large transfers table does not block writes.
 */
export class TransfersPartnerListingMigration1733010000000 implements MigrationInterface {
  name = 'TransfersPartnerListingMigration1733010000000';
  transaction = false as const;

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE INDEX CONCURRENTLY IF NOT EXISTS transfers_partner_created_idx ON transfers (partner_id, created_at DESC, transfer_id DESC)',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX CONCURRENTLY IF EXISTS transfers_partner_created_idx');
  }
}
