import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Quotes are only ever read by their id (with the partner as a check), consumed by
 * their id, and pruned by expiry: nothing lists a partner's quotes. The index on
 * (partner_id, created_at) served no query, cost a write per quote, and on a table
 * whose statistics lag (a fresh database, a burst of one partner's quotes) the
 * planner chose it over the primary key for `quote_id = $1 AND partner_id = $2`,
 * reading every quote of the partner (530 rows per order in the bench). Dropped
 * CONCURRENTLY, outside a transaction, so a deploy does not block quotes.
 */
export class QuotesWithoutPartnerIndexMigration1797300000000 implements MigrationInterface {
  name = 'QuotesWithoutPartnerIndexMigration1797300000000';
  transaction = false as const;

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX CONCURRENTLY IF EXISTS quotes_partner_id_idx');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE INDEX CONCURRENTLY IF NOT EXISTS quotes_partner_id_idx ON quotes (partner_id, created_at)',
    );
  }
}
