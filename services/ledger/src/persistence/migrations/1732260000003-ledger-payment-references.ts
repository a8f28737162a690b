import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Pay-in buy orders: trading registers each order's payment
 * reference here, so a paybill credit entered with it lands in that partner's
 * KES account (never suspense). kes_credits.payment_reference records which
 * registered reference a credit carried; trading finds the order's payment by it.
 * The reference shape (12 digits starting with 9) can never equal an 11-digit
 * partner account reference.
 */
export class LedgerPaymentReferencesMigration1732260000003 implements MigrationInterface {
  name = 'LedgerPaymentReferencesMigration1732260000003';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE payment_references (
        reference text PRIMARY KEY CHECK (reference ~ '^9[0-9]{11}$'),
        partner_id uuid NOT NULL,
        order_id uuid NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(
      'ALTER TABLE kes_credits ADD COLUMN payment_reference text REFERENCES payment_references (reference)',
    );
    await queryRunner.query(
      'CREATE INDEX kes_credits_payment_reference_idx ON kes_credits (payment_reference, received_at) WHERE payment_reference IS NOT NULL',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE kes_credits DROP COLUMN payment_reference');
    await queryRunner.query('DROP TABLE payment_references');
  }
}
