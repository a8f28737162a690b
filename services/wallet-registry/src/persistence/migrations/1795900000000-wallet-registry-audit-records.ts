import { AUDIT_RECORDS_TABLE_V1, AUDIT_RECORDS_TABLE_V1_DOWN } from '@platform/persistence';
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The audit trail of this service's operator and security-relevant actions:
 * the table every service shares the shape of (@platform/persistence, audit.ts),
 * append-only (a trigger refuses UPDATE, DELETE and TRUNCATE, and the owning
 * role loses those privileges), listed by ListAuditRecords.
 */
export class WalletRegistryAuditRecordsMigration1795900000000 implements MigrationInterface {
  name = 'WalletRegistryAuditRecordsMigration1795900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const statement of AUDIT_RECORDS_TABLE_V1) await queryRunner.query(statement);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const statement of AUDIT_RECORDS_TABLE_V1_DOWN) await queryRunner.query(statement);
  }
}
