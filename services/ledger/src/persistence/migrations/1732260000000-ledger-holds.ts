import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Two-phase holds. The row is the hold's own durable timer: a pending hold with
 * expires_at in the past is voided as `expired` by the sweeper of any replica.
 * request_hash makes placement idempotent on the caller's id; resolution_hash
 * makes the one resolution (post or void) idempotent too.
 */
export class LedgerHoldsMigration1732260000000 implements MigrationInterface {
  name = 'LedgerHoldsMigration1732260000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE holds (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts (id),
        currency text NOT NULL CHECK (currency IN ('KES', 'USDT', 'USD')),
        amount numeric(30, 6) NOT NULL CHECK (amount > 0),
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'posted', 'voided', 'expired')),
        posted_amount numeric(30, 6) NOT NULL DEFAULT 0 CHECK (posted_amount >= 0 AND posted_amount <= amount),
        expires_at timestamptz,
        request_hash text NOT NULL,
        resolution_hash text,
        entry_id uuid REFERENCES entries (id),
        metadata jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        resolved_at timestamptz,
        CHECK ((status = 'pending') = (resolved_at IS NULL)),
        CHECK ((status = 'posted') = (entry_id IS NOT NULL))
      );
      CREATE INDEX holds_pending_expiry_idx ON holds (expires_at) WHERE status = 'pending' AND expires_at IS NOT NULL;
      CREATE INDEX holds_pending_account_idx ON holds (account_id) WHERE status = 'pending';
      CREATE INDEX postings_account_history_idx ON postings (account_id, id DESC);
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX postings_account_history_idx; DROP TABLE holds;');
  }
}
