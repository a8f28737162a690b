import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * GET /v1/collections filtered by status: one index walk whatever the partner's history.
 * On (partner_id, created_at) alone a rare status (refunded, expired) read the partner's
 * whole history to find its few rows. Built CONCURRENTLY, outside a transaction, so a
 * deploy onto a large table does not block writes.
 */
export class CollectionsStatusListingMigration1796750000000 implements MigrationInterface {
  name = 'CollectionsStatusListingMigration1796750000000';
  transaction = false as const;

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS collections_partner_status_created_idx
         ON collections (partner_id, status, created_at DESC, id DESC)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX CONCURRENTLY IF EXISTS collections_partner_status_created_idx');
  }
}
