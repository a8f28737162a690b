import { OUTBOX_TABLE_V1_DOWN_SQL, OUTBOX_TABLE_V1_SQL } from '@platform/events';
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Trading, version 1: partners' trading profiles, quotes, sandbox rate pins,
 * and the outbox (trading will emit order events).
 *
 * partner_profiles keeps the fee schedule loose on purpose (fee_bps unchecked,
 * flat and cap as text): every quote re-validates it and answers
 * FEE_PRICING_INVALID when it cannot be applied, so a bad stored value must be
 * representable rather than coerced by the column type (numeric(20,2) would
 * silently round "1.234" to 1.23).
 *
 * quotes are single use: an order consumes one with
 *   UPDATE quotes SET consumed_at = now()
 *    WHERE quote_id = $1 AND partner_id = $2 AND consumed_at IS NULL AND expires_at > now()
 *   RETURNING ...
 * which succeeds for exactly one caller. The checks below restate the pricing
 * invariants, so a row that breaks them cannot exist.
 */
export class TradingV1Migration1732300000000 implements MigrationInterface {
  name = 'TradingV1Migration1732300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(OUTBOX_TABLE_V1_SQL);
    await queryRunner.query(`
      CREATE TABLE partner_profiles (
        partner_id uuid PRIMARY KEY,
        status text NOT NULL CHECK (status IN ('active', 'suspended')),
        buy_mode text NOT NULL CHECK (buy_mode IN ('debit_first', 'pay_in')),
        sell_mode text NOT NULL CHECK (sell_mode IN ('deposit', 'balance')),
        fee_bps integer NOT NULL,
        fee_flat_kes text NOT NULL,
        fee_cap_kes text,
        per_order_cap_kes numeric(20, 2) NOT NULL CHECK (per_order_cap_kes > 0),
        daily_cap_kes numeric(20, 2) NOT NULL CHECK (daily_cap_kes > 0),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE quotes (
        quote_id uuid PRIMARY KEY,
        partner_id uuid NOT NULL,
        side text NOT NULL CHECK (side IN ('buy', 'sell')),
        priced_by text NOT NULL CHECK (priced_by IN ('KES', 'USDT')),
        kes_amount numeric(20, 2) NOT NULL CHECK (kes_amount > 0),
        usdt_amount numeric(24, 6) NOT NULL CHECK (usdt_amount > 0),
        rate numeric(20, 4) NOT NULL CHECK (rate > 0),
        fee_kes numeric(20, 2) NOT NULL CHECK (fee_kes >= 0),
        fee_bps integer NOT NULL CHECK (fee_bps BETWEEN 0 AND 10000),
        fee_flat_kes numeric(20, 2) NOT NULL CHECK (fee_flat_kes >= 0),
        fee_cap_kes numeric(20, 2) CHECK (fee_cap_kes >= fee_flat_kes),
        kes_total_amount numeric(20, 2) NOT NULL CHECK (kes_total_amount > 0),
        rate_observed_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        consumed_at timestamptz,
        created_at timestamptz NOT NULL,
        CHECK (expires_at > created_at),
        CHECK (fee_cap_kes IS NULL OR fee_kes <= fee_cap_kes),
        CHECK ((side = 'buy' AND kes_total_amount = kes_amount + fee_kes)
            OR (side = 'sell' AND kes_total_amount = kes_amount - fee_kes))
      )`);
    await queryRunner.query('CREATE INDEX quotes_partner_id_idx ON quotes (partner_id, created_at)');
    await queryRunner.query(`
      CREATE TABLE sandbox_rate_overrides (
        partner_id uuid PRIMARY KEY,
        bid numeric(20, 4) NOT NULL CHECK (bid > 0),
        ask numeric(20, 4) NOT NULL,
        halted_at timestamptz,
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK (ask >= bid)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE sandbox_rate_overrides');
    await queryRunner.query('DROP TABLE quotes');
    await queryRunner.query('DROP TABLE partner_profiles');
    await queryRunner.query(OUTBOX_TABLE_V1_DOWN_SQL);
  }
}
