import { MigrationInterface, QueryRunner } from 'typeorm';
import { OUTBOX_TABLE_V1_SQL } from '@platform/events';

/**
 * The ledger's first schema: accounts, immutable entries and postings, partner
 * account sets, inbound KES credits, the outbox, and the service's own
 * accounts. The database backs up the domain's invariants: a partner account
 * cannot go below zero, postings cannot change, and each currency's scale is fixed.
 */
export class LedgerV1Migration1732170000000 implements MigrationInterface {
  name = 'LedgerV1Migration1732170000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE accounts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        currency text NOT NULL CHECK (currency IN ('KES', 'USDT', 'USD')),
        partner_id uuid,
        code text,
        posted numeric(30, 6) NOT NULL DEFAULT 0,
        held numeric(30, 6) NOT NULL DEFAULT 0 CHECK (held >= 0),
        version bigint NOT NULL DEFAULT 0,
        allow_negative boolean NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((partner_id IS NULL) <> (code IS NULL)),
        CHECK (allow_negative OR posted - held >= 0),
        CHECK (partner_id IS NULL OR NOT allow_negative)
      );
      CREATE UNIQUE INDEX accounts_partner_currency_idx ON accounts (partner_id, currency) WHERE partner_id IS NOT NULL;
      CREATE UNIQUE INDEX accounts_code_currency_idx ON accounts (code, currency) WHERE code IS NOT NULL;

      CREATE TABLE partner_accounts (
        partner_id uuid PRIMARY KEY,
        kes_account_id uuid NOT NULL REFERENCES accounts (id),
        usdt_account_id uuid NOT NULL REFERENCES accounts (id),
        usd_account_id uuid NOT NULL REFERENCES accounts (id),
        kes_account_reference text NOT NULL UNIQUE,
        kes_account_status text NOT NULL DEFAULT 'active',
        usdt_deposit_address text UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now()
      );

      CREATE TABLE entries (
        id uuid PRIMARY KEY,
        kind text NOT NULL,
        partner_id uuid,
        request_hash text NOT NULL,
        metadata jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX entries_partner_idx ON entries (partner_id, created_at);

      CREATE TABLE postings (
        id bigserial PRIMARY KEY,
        entry_id uuid NOT NULL REFERENCES entries (id),
        account_id uuid NOT NULL REFERENCES accounts (id),
        currency text NOT NULL,
        amount numeric(30, 6) NOT NULL CHECK (amount <> 0),
        balance_after numeric(30, 6) NOT NULL,
        version_after bigint NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (account_id, version_after)
      );
      CREATE INDEX postings_entry_idx ON postings (entry_id);

      CREATE FUNCTION refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'ledger rows are immutable (%)', TG_TABLE_NAME;
      END $$;
      CREATE TRIGGER postings_immutable BEFORE UPDATE OR DELETE ON postings FOR EACH ROW EXECUTE FUNCTION refuse_change();
      CREATE TRIGGER entries_immutable BEFORE UPDATE OR DELETE ON entries FOR EACH ROW EXECUTE FUNCTION refuse_change();

      CREATE TABLE kes_credits (
        bank_transaction_id text PRIMARY KEY,
        transaction_id uuid NOT NULL UNIQUE,
        partner_id uuid,
        account_id uuid NOT NULL REFERENCES accounts (id),
        amount_kes numeric(30, 2) NOT NULL CHECK (amount_kes > 0),
        rail text NOT NULL,
        rail_reference text,
        received_at timestamptz NOT NULL,
        entry_id uuid NOT NULL REFERENCES entries (id),
        created_at timestamptz NOT NULL DEFAULT now()
      );
      COMMENT ON COLUMN kes_credits.partner_id IS 'null when the account reference matched no partner: the money sits in suspense';
    `);
    await queryRunner.query(OUTBOX_TABLE_V1_SQL);
    // The service's own accounts, one per code and currency. They may go negative:
    // clearing accounts mirror money held at outside parties.
    await queryRunner.query(`
      INSERT INTO accounts (currency, code, allow_negative)
      SELECT currency, code, code <> 'fee_revenue'
      FROM unnest(ARRAY['KES', 'USDT', 'USD']) AS currency,
           unnest(ARRAY['treasury', 'fee_revenue', 'bank_clearing', 'chain_clearing', 'usd_rails_clearing', 'suspense']) AS code
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TABLE outbox; DROP TABLE kes_credits; DROP TABLE postings; DROP TABLE entries;
      DROP FUNCTION refuse_change CASCADE; DROP TABLE partner_accounts; DROP TABLE accounts;
    `);
  }
}
