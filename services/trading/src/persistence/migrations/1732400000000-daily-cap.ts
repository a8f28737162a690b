import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The shared rolling 24-hour cap. One row per reservation (usage_id is the
 * caller's idempotency key). Reservations of one partner serialise on that
 * partner's partner_profiles row (SELECT ... FOR UPDATE), so the sum read
 * under the lock is the sum every concurrent reservation sees.
 */
export class DailyCapMigration1732400000000 implements MigrationInterface {
  name = 'DailyCapMigration1732400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE cap_usages (
        usage_id uuid PRIMARY KEY,
        partner_id uuid NOT NULL,
        source text NOT NULL CHECK (source IN ('order', 'transfer', 'usdt_send')),
        amount_kes numeric(20, 2) NOT NULL CHECK (amount_kes > 0),
        given_currency text NOT NULL CHECK (given_currency IN ('KES', 'USDT')),
        given_amount numeric(24, 6) NOT NULL CHECK (given_amount > 0),
        created_at timestamptz NOT NULL DEFAULT now(),
        released_at timestamptz
      )`);
    // The window sum reads only unreleased rows of one partner.
    await queryRunner.query(
      'CREATE INDEX cap_usages_open_idx ON cap_usages (partner_id, created_at) WHERE released_at IS NULL',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE cap_usages');
  }
}
