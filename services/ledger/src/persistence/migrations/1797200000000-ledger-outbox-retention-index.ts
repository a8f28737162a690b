import { OUTBOX_PUBLISHED_INDEX_DOWN_SQL, OUTBOX_PUBLISHED_INDEX_SQL } from '@platform/events';
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The index the retention worker's outbox deletes walk (docs/retention.md):
 * published rows by publication time, so each batch reads its rows in order
 * and stops at the batch size. Built CONCURRENTLY, outside a transaction, so a
 * deploy onto a large outbox does not block the writes that enqueue events.
 */
export class LedgerOutboxRetentionIndexMigration1797200000000 implements MigrationInterface {
  name = 'LedgerOutboxRetentionIndexMigration1797200000000';
  transaction = false as const;

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(OUTBOX_PUBLISHED_INDEX_SQL);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(OUTBOX_PUBLISHED_INDEX_DOWN_SQL);
  }
}
