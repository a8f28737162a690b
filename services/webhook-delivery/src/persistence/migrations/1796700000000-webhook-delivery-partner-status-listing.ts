import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A partner's deliveries of one status, newest first (the partner's list filtered
 * by delivered, dead or failing; the operator's dead-only list; replaying a range
 * of closed deliveries): one index walk per page. On (partner_id, created_at) alone
 * a rare status (dead, failing) made the walk read the partner's whole history to
 * find a page of them. Built CONCURRENTLY, outside a transaction, so a deploy onto
 * a large deliveries table does not block the inserts of incoming events.
 */
export class WebhookDeliveryPartnerStatusListingMigration1796700000000 implements MigrationInterface {
  name = 'WebhookDeliveryPartnerStatusListingMigration1796700000000';
  transaction = false as const;

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE INDEX CONCURRENTLY IF NOT EXISTS deliveries_partner_status_created_idx ON deliveries (partner_id, status, created_at DESC, delivery_id DESC)',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX CONCURRENTLY IF EXISTS deliveries_partner_status_created_idx');
  }
}
