import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The indexes the retention worker's deletes walk (docs/retention.md):
 * finished deliveries by creation time (the same condition as the worker's
 * FINISHED_DELIVERY, so the planner uses it), and partner retries by delivery,
 * deleted with the delivery they name (delivery attempts already have theirs).
 * Built CONCURRENTLY, outside a transaction, so a deploy onto large tables does
 * not block deliveries being recorded.
 */
export class WebhookDeliveryRetentionIndexesMigration1797200000000 implements MigrationInterface {
  name = 'WebhookDeliveryRetentionIndexesMigration1797200000000';
  transaction = false as const;

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS deliveries_finished_created_idx ON deliveries (created_at)
         WHERE status IN ('delivered', 'dead', 'no_endpoint') AND feed_position IS NOT NULL`,
    );
    await queryRunner.query(
      'CREATE INDEX CONCURRENTLY IF NOT EXISTS partner_retries_delivery_idx ON partner_retries (delivery_id)',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX CONCURRENTLY IF EXISTS partner_retries_delivery_idx');
    await queryRunner.query('DROP INDEX CONCURRENTLY IF EXISTS deliveries_finished_created_idx');
  }
}
