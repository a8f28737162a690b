import { OUTBOX_TABLE_V1_DOWN_SQL, OUTBOX_TABLE_V1_SQL } from '@platform/events';
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The transactional outbox: events about collections (collection.received)
 * are written here in the same transaction as the change that caused them,
 * and the relay publishes them afterwards.
 */
export class OutboxV1Migration1732180000000 implements MigrationInterface {
  name = 'OutboxV1Migration1732180000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(OUTBOX_TABLE_V1_SQL);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(OUTBOX_TABLE_V1_DOWN_SQL);
  }
}
