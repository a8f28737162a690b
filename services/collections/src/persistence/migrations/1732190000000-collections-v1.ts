import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Collections, their deposits, and per-partner fee terms.
 *
 * - `collections`: one row per collection; the row is also the step driver's
 *   state (status, next_step_at, attempts). Amounts are numeric(20,2) USD;
 *   fee terms are copied from the partner's terms at create, so a later change
 *   never reprices an open collection. `credit_entry_id` is the caller-made
 *   ledger entry id, stored with the deposit before the ledger is asked.
 * - `deposits`: every deposit the rails report, unique per rails deposit id,
 *   so a repeated notification credits nothing more.
 * - `collection_fee_terms`: operators' terms; a partner without a row uses the
 *   configured defaults.
 */
export class CollectionsV1Migration1732190000000 implements MigrationInterface {
  name = 'CollectionsV1Migration1732190000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE collection_fee_terms (
        partner_id uuid PRIMARY KEY,
        percent_bps integer NOT NULL CHECK (percent_bps BETWEEN 0 AND 10000),
        flat_minor bigint NOT NULL CHECK (flat_minor >= 0),
        cap_minor bigint NOT NULL CHECK (cap_minor >= flat_minor),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE collections (
        id uuid PRIMARY KEY,
        partner_id uuid NOT NULL,
        reference text NOT NULL UNIQUE,
        partner_reference text NOT NULL,
        request_hash text NOT NULL,
        payer_label text NOT NULL,
        currency text NOT NULL CHECK (currency = 'USD'),
        status text NOT NULL CHECK (status IN ('open', 'received', 'crediting', 'credited', 'refunded', 'expired')),
        account_number text NOT NULL,
        fee_percent_bps integer NOT NULL,
        fee_flat_minor bigint NOT NULL,
        fee_cap_minor bigint NOT NULL,
        expected_amount numeric(20, 2),
        gross_amount numeric(20, 2),
        fee_amount numeric(20, 2),
        net_amount numeric(20, 2),
        amount_mismatch boolean,
        sender_name text,
        deposit_id text,
        credit_entry_id uuid UNIQUE,
        refund_reason text,
        step_attempts integer NOT NULL DEFAULT 0,
        next_step_at timestamptz,
        last_step_error text,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        received_at timestamptz,
        credited_at timestamptz,
        closed_at timestamptz,
        CONSTRAINT collections_partner_reference_key UNIQUE (partner_id, partner_reference),
        CONSTRAINT collections_amounts_add_up CHECK (
          (gross_amount IS NULL AND fee_amount IS NULL AND net_amount IS NULL)
          OR (status = 'refunded' AND net_amount IS NULL)
          OR (gross_amount = fee_amount + net_amount AND net_amount > 0)),
        CONSTRAINT collections_credit_needs_entry CHECK (
          status NOT IN ('received', 'crediting', 'credited') OR (credit_entry_id IS NOT NULL AND net_amount IS NOT NULL))
      )`);
    await queryRunner.query(
      'CREATE INDEX collections_partner_created_idx ON collections (partner_id, created_at DESC, id DESC)',
    );
    await queryRunner.query(
      `CREATE INDEX collections_to_credit_idx ON collections (next_step_at) WHERE status IN ('received', 'crediting')`,
    );
    await queryRunner.query(
      `CREATE INDEX collections_open_expiry_idx ON collections (expires_at) WHERE status = 'open'`,
    );
    await queryRunner.query(`
      CREATE TABLE deposits (
        deposit_id text PRIMARY KEY,
        collection_id uuid NOT NULL REFERENCES collections (id),
        amount numeric(20, 2) NOT NULL CHECK (amount > 0),
        sender_name text,
        disposition text NOT NULL CHECK (disposition IN ('accepted', 'refunded')),
        refund_reason text CHECK ((disposition = 'refunded') = (refund_reason IS NOT NULL)),
        received_at timestamptz NOT NULL
      )`);
    await queryRunner.query('CREATE INDEX deposits_collection_idx ON deposits (collection_id, received_at)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE deposits');
    await queryRunner.query('DROP TABLE collections');
    await queryRunner.query('DROP TABLE collection_fee_terms');
  }
}
