import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The owner of a hold: "<service>:<kind>:<id>", the record in the calling
 * service the hold exists for. Owners list their pending holds to void orphans
 * (holds_pending_owned_idx walks them in id order); the ledger never calls an
 * owner. Pending holds placed before this migration get the owner their
 * metadata already names (every caller wrote its record's id and kind there),
 * so they are reconciled too; resolved holds keep none, nothing reads it.
 */
export class LedgerHoldOwnersMigration1795917000000 implements MigrationInterface {
  name = 'LedgerHoldOwnersMigration1795917000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE holds ADD COLUMN owner text
        CHECK (owner ~ '^[a-z][a-z-]{0,30}[a-z]:[a-z][a-z_]{0,31}:[A-Za-z0-9-]{1,64}$');
      UPDATE holds SET owner = CASE
          WHEN metadata->>'kind' = 'transfer' THEN 'payouts:transfer:' || (metadata->>'transferId')
          WHEN metadata->>'kind' = 'usdt_send' THEN 'payouts:usdt_send:' || (metadata->>'sendId')
          ELSE 'trading:order:' || (metadata->>'orderId')
        END
        WHERE status = 'pending' AND (
          (metadata->>'kind' = 'transfer' AND metadata->>'transferId' ~ '^[0-9a-f-]{36}$')
          OR (metadata->>'kind' = 'usdt_send' AND metadata->>'sendId' ~ '^[0-9a-f-]{36}$')
          OR (metadata->>'kind' IN ('order_buy', 'order_buy_pay_in', 'order_sell') AND metadata->>'orderId' ~ '^[0-9a-f-]{36}$'));
      CREATE INDEX holds_pending_owned_idx ON holds (id) WHERE status = 'pending' AND owner IS NOT NULL;
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX holds_pending_owned_idx; ALTER TABLE holds DROP COLUMN owner;');
  }
}
