import { MigrationInterface, QueryRunner } from 'typeorm';

/** Per-partner settings the registry needs: the administrators' e-mail domain. */
export class PartnerSettingsV1Migration1732170000000 implements MigrationInterface {
  name = 'PartnerSettingsV1Migration1732170000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE partner_settings (
        partner_id uuid PRIMARY KEY,
        admin_domain text NOT NULL CHECK (admin_domain = lower(admin_domain) AND admin_domain <> ''),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE partner_settings');
  }
}
