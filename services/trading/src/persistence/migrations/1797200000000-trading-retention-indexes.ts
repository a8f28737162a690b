import { OUTBOX_PUBLISHED_INDEX_SQL, OUTBOX_PUBLISHED_INDEX_DOWN_SQL } from '@platform/events';
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The indexes the retention worker's deletes walk (docs/retention.md): published
 * outbox rows by publication time, and quotes never consumed by expiry. Each
 * batch reads its rows in that order and stops at the batch size, so a delete
 * never scans the table. Built CONCURRENTLY, outside a transaction, so a deploy
 * onto a large table does not block writes.
 */
export class TradingRetentionIndexesMigration1797200000000 implements MigrationInterface {
  name = 'TradingRetentionIndexesMigration1797200000000';
  transaction = false as const;

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(OUTBOX_PUBLISHED_INDEX_SQL);
    await queryRunner.query(
      'CREATE INDEX CONCURRENTLY IF NOT EXISTS quotes_unconsumed_expiry_idx ON quotes (expires_at) WHERE consumed_at IS NULL',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX CONCURRENTLY IF EXISTS quotes_unconsumed_expiry_idx');
    await queryRunner.query(OUTBOX_PUBLISHED_INDEX_DOWN_SQL);
  }
}
