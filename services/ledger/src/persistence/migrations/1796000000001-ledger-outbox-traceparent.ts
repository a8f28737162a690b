import { OUTBOX_TRACEPARENT_V2_DOWN_SQL, OUTBOX_TRACEPARENT_V2_SQL } from '@platform/events';
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each outbox row keeps the W3C traceparent of the span that wrote it (null
 * for rows written before, or outside any span), so the relay publishes the
 * event with it and the webhook delivery continues the partner request's trace.
 * Nullable without a default: no table rewrite.
 */
export class LedgerOutboxTraceparentMigration1796000000001 implements MigrationInterface {
  name = 'LedgerOutboxTraceparentMigration1796000000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(OUTBOX_TRACEPARENT_V2_SQL);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(OUTBOX_TRACEPARENT_V2_DOWN_SQL);
  }
}
