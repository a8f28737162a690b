import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Mobile-money funding prompts. A row is written before the bank is asked
 * (the caller makes the id and stores it before sending). An approved push
 * carries next_credit_at, the durable timer of its ledger credit: the credit
 * runner retries it (bank transaction id MMP-<push_id>, so the ledger books it
 * once) until the push reads credited; null otherwise.
 */
export class MobileMoneyPushesMigration1733000000000 implements MigrationInterface {
  name = 'MobileMoneyPushesMigration1733000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE mobile_money_pushes (
        push_id uuid PRIMARY KEY,
        partner_id uuid NOT NULL,
        msisdn text NOT NULL CHECK (msisdn ~ '^254[17][0-9]{8}$'),
        amount_kes numeric(20, 2) NOT NULL CHECK (amount_kes > 0),
        kes_account_reference text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'approved', 'credited', 'declined', 'expired', 'rejected', 'unavailable')),
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        answered_at timestamptz,
        rail_reference text,
        credit_transaction_id text,
        next_credit_at timestamptz,
        credit_attempts integer NOT NULL DEFAULT 0,
        CHECK ((status = 'credited') = (credit_transaction_id IS NOT NULL)),
        CHECK (status NOT IN ('approved', 'credited') OR rail_reference IS NOT NULL)
      )`);
    await queryRunner.query(
      'CREATE INDEX mobile_money_pushes_credit_due_idx ON mobile_money_pushes (next_credit_at) WHERE next_credit_at IS NOT NULL',
    );
    await queryRunner.query(
      "CREATE INDEX mobile_money_pushes_pending_idx ON mobile_money_pushes (expires_at) WHERE status = 'pending'",
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE mobile_money_pushes');
  }
}
