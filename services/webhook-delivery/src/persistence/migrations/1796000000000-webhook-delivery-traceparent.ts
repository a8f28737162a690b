import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each delivery keeps the W3C traceparent its event arrived with (null when it
 * came without one), so every attempt, however late, continues the trace of the
 * request that caused the event. Nullable without a default: no table rewrite.
 */
export class WebhookDeliveryTraceparentMigration1796000000000 implements MigrationInterface {
  name = 'WebhookDeliveryTraceparentMigration1796000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE deliveries ADD COLUMN traceparent text');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE deliveries DROP COLUMN traceparent');
  }
}
