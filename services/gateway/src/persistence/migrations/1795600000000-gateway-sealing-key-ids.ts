import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Signing secrets are now sealed under a key ring: new values read
 * `v2.<key id>.…` (the key that sealed them), older ones `v1.…`. The check on
 * the column admits both; `ops secrets reseal` moves every value to v2.
 */
export class GatewaySealingKeyIdsMigration1795600000000 implements MigrationInterface {
  name = 'GatewaySealingKeyIdsMigration1795600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE credentials DROP CONSTRAINT credentials_secret_sealed_check`);
    await queryRunner.query(
      `ALTER TABLE credentials ADD CONSTRAINT credentials_secret_sealed_check CHECK (secret_sealed ~ '^v1\\.|^v2\\.[A-Za-z0-9_-]{1,32}\\.')`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE credentials DROP CONSTRAINT credentials_secret_sealed_check`);
    await queryRunner.query(
      `ALTER TABLE credentials ADD CONSTRAINT credentials_secret_sealed_check CHECK (secret_sealed LIKE 'v1.%')`,
    );
  }
}
