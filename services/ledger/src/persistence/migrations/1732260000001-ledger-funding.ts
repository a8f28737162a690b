import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Account readiness and payout destinations. The KES account's status is now
 * one of four known values; payout destinations are the KES accounts the
 * service registered for a partner, with their full number (never logged,
 * masked at the gateway).
 */
export class LedgerFundingMigration1732260000001 implements MigrationInterface {
  name = 'LedgerFundingMigration1732260000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE partner_accounts ADD CONSTRAINT partner_accounts_kes_status_check
        CHECK (kes_account_status IN ('not_allocated', 'activating', 'active', 'suspended'));

      CREATE TABLE payout_destinations (
        id uuid PRIMARY KEY,
        partner_id uuid NOT NULL REFERENCES partner_accounts (partner_id),
        rail text NOT NULL CHECK (rail IN ('mobile_money', 'pesalink', 'rtgs', 'eft')),
        currency text NOT NULL DEFAULT 'KES' CHECK (currency = 'KES'),
        account_name text NOT NULL,
        account_number text NOT NULL,
        bank_code text,
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'closed', 'frozen')),
        created_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((rail = 'mobile_money') = (bank_code IS NULL))
      );
      CREATE INDEX payout_destinations_partner_idx ON payout_destinations (partner_id, created_at);
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'DROP TABLE payout_destinations; ALTER TABLE partner_accounts DROP CONSTRAINT partner_accounts_kes_status_check;',
    );
  }
}
