import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Shards of the hot service accounts. Every settlement of every partner posts
 * to treasury and fee revenue, and an entry locks each account it posts to
 * until it commits: one row per account made every partner's settlements queue
 * on it. Each treasury and fee_revenue account (every currency) now has
 * SHARDS − 1 more rows, `shard_of` naming it; the ledger posts a partner's
 * legs to one of them chosen by the partner's account, so settlements of
 * different partners mostly lock different rows. The account callers know
 * (GetServiceAccount's id) stays the base of its shards, and its balance is
 * the sum over them. Each shard is an ordinary account with its own postings,
 * versions and floor, so every check of `ops ledger check` holds per row and
 * the sum per currency is unchanged.
 *
 * A shard's code is the base's with `#n` appended: the (code, currency) index
 * stays unique, and a replica of the previous release, which maps service
 * accounts by code, still finds the base under the plain code during a rolling
 * deploy (and simply posts to it).
 */
export class LedgerServiceAccountShardsMigration1797000000000 implements MigrationInterface {
  name = 'LedgerServiceAccountShardsMigration1797000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE accounts ADD COLUMN shard_of uuid REFERENCES accounts (id),
        ADD CONSTRAINT accounts_shard_of_service CHECK (shard_of IS NULL OR (partner_id IS NULL AND code IS NOT NULL));
      INSERT INTO accounts (currency, code, allow_negative, shard_of)
      SELECT base.currency, base.code || '#' || n, base.allow_negative, base.id
        FROM accounts base, generate_series(1, 7) AS n
       WHERE base.code IN ('treasury', 'fee_revenue') AND base.partner_id IS NULL
       ORDER BY base.code, base.currency, n;
    `);
  }

  /** Refused while any shard has a posting: its money would have nowhere to go. */
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DELETE FROM accounts WHERE shard_of IS NOT NULL;
      ALTER TABLE accounts DROP CONSTRAINT accounts_shard_of_service, DROP COLUMN shard_of;
    `);
  }
}
