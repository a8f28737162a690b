import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Orders and the operator's platform switches.
 *
 * An order copies its quote's prices (the quote row stays the record of what
 * was offered). (partner_id, partner_reference) is unique: the create's
 * idempotency key. tx_hash is unique across all orders: a hash attributes one
 * deposit to one order. next_action_at is the durable timer of the order
 * scheduler: every replica claims due rows FOR UPDATE SKIP LOCKED, so a step
 * runs once and survives restarts; null means nothing is scheduled.
 */
export class OrdersMigration1732500000000 implements MigrationInterface {
  name = 'OrdersMigration1732500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE orders (
        order_id uuid PRIMARY KEY,
        partner_id uuid NOT NULL,
        partner_reference text NOT NULL CHECK (length(partner_reference) BETWEEN 1 AND 200),
        quote_id uuid NOT NULL UNIQUE,
        side text NOT NULL CHECK (side IN ('buy', 'sell')),
        funding_mode text NOT NULL CHECK (funding_mode IN ('debit_first', 'pay_in', 'deposit', 'balance')),
        status text NOT NULL CHECK (status IN ('awaiting_usdt', 'awaiting_payment', 'funds_reserved', 'settled', 'rejected', 'expired')),
        kes_amount numeric(20, 2) NOT NULL CHECK (kes_amount > 0),
        usdt_amount numeric(24, 6) NOT NULL CHECK (usdt_amount > 0),
        rate numeric(20, 4) NOT NULL CHECK (rate > 0),
        fee_kes numeric(20, 2) NOT NULL CHECK (fee_kes >= 0),
        fee_bps integer NOT NULL,
        fee_flat_kes numeric(20, 2) NOT NULL,
        fee_cap_kes numeric(20, 2),
        kes_total_amount numeric(20, 2) NOT NULL CHECK (kes_total_amount > 0),
        expires_at timestamptz NOT NULL,
        kes_debit_status text CHECK (kes_debit_status IN ('reserved', 'debited', 'released', 'reversal_pending', 'reversed')),
        debit_outcome text CHECK (debit_outcome IN ('pending', 'accepted', 'ambiguous', 'refused')),
        deposit_address text,
        send_before timestamptz,
        payout_account_id uuid,
        tx_hash text UNIQUE CHECK (tx_hash ~ '^[0-9a-f]{64}$'),
        deposit_usdt_amount numeric(24, 6),
        payout_instruction_id uuid,
        refusal_code text,
        next_action_at timestamptz,
        funds_confirmed_at timestamptz,
        completed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (partner_id, partner_reference),
        CHECK ((side = 'buy' AND kes_total_amount = kes_amount + fee_kes)
            OR (side = 'sell' AND kes_total_amount = kes_amount - fee_kes))
      )`);
    await queryRunner.query('CREATE INDEX orders_due_idx ON orders (next_action_at) WHERE next_action_at IS NOT NULL');
    await queryRunner.query(
      "CREATE INDEX orders_awaiting_usdt_idx ON orders (partner_id) WHERE status = 'awaiting_usdt'",
    );
    await queryRunner.query(`
      CREATE TABLE platform_switches (
        name text PRIMARY KEY CHECK (name IN ('kill_switch', 'swaps', 'treasury_kes', 'treasury_usdt')),
        value text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE platform_switches');
    await queryRunner.query('DROP TABLE orders');
  }
}
