import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A partner's orders newest first (GET /v1/orders): one index walk per page,
 * whatever the partner's history. Built CONCURRENTLY, outside a transaction,
 * so a deploy onto a large orders table does not block order writes while it builds.
 */
export class OrdersPartnerListingMigration1732610000000 implements MigrationInterface {
  name = 'OrdersPartnerListingMigration1732610000000';
  transaction = false as const;

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE INDEX CONCURRENTLY IF NOT EXISTS orders_partner_created_idx ON orders (partner_id, created_at DESC, order_id DESC)',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX CONCURRENTLY IF EXISTS orders_partner_created_idx');
  }
}
