import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Pay-in buy orders: the wallet the USDT goes to, the payment
 * reference the ledger registered for the order (unique), the paybill shown in
 * the payment instructions, the payment window (pay_before), and the matched
 * payment (the payer rail's code, the bank's transaction id, when matched, and
 * the amount the payment carried).
 */
export class PayInOrdersMigration1732600000000 implements MigrationInterface {
  name = 'PayInOrdersMigration1732600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE orders
        ADD COLUMN wallet_id uuid,
        ADD COLUMN payment_reference text UNIQUE CHECK (payment_reference ~ '^9[0-9]{11}$'),
        ADD COLUMN paybill text,
        ADD COLUMN beneficiary_name text,
        ADD COLUMN pay_before timestamptz,
        ADD COLUMN payment_rail_reference text,
        ADD COLUMN payment_bank_transaction_id text,
        ADD COLUMN payment_matched_at timestamptz,
        ADD COLUMN payment_kes_amount numeric(20, 2),
        ADD CONSTRAINT orders_pay_in_shape CHECK (funding_mode <> 'pay_in'
          OR (wallet_id IS NOT NULL AND payment_reference IS NOT NULL AND paybill IS NOT NULL AND beneficiary_name IS NOT NULL AND pay_before IS NOT NULL))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE orders DROP CONSTRAINT orders_pay_in_shape, DROP COLUMN wallet_id, DROP COLUMN payment_reference, DROP COLUMN paybill,
        DROP COLUMN beneficiary_name, DROP COLUMN pay_before, DROP COLUMN payment_rail_reference, DROP COLUMN payment_bank_transaction_id,
        DROP COLUMN payment_matched_at, DROP COLUMN payment_kes_amount`);
  }
}
