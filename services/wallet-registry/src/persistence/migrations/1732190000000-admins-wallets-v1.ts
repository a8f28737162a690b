import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Administrators, withdrawal addresses (wallets) and their approval codes.
 * - One active administrator per (partner, e-mail); removed ones are kept.
 * - One non-revoked wallet per (partner, chain, address): concurrent
 *   registrations of one address meet on this index and make one wallet.
 * - At most one live code per wallet; codes are stored only as keyed hashes.
 */
export class AdminsWalletsV1Migration1732190000000 implements MigrationInterface {
  name = 'AdminsWalletsV1Migration1732190000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE administrators (
        id uuid PRIMARY KEY,
        partner_id uuid NOT NULL,
        email text NOT NULL CHECK (length(email) BETWEEN 3 AND 254),
        name text NOT NULL CHECK (name <> '' AND length(name) <= 200),
        status text NOT NULL CHECK (status IN ('active', 'removed')),
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        removed_at timestamptz,
        CHECK ((status = 'removed') = (removed_at IS NOT NULL))
      )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX administrators_active_email_unique ON administrators (partner_id, email) WHERE status = 'active'`,
    );
    // The code recipient is the earliest-registered active administrator.
    await queryRunner.query(
      `CREATE INDEX administrators_active_order_idx ON administrators (partner_id, created_at, id) WHERE status = 'active'`,
    );

    await queryRunner.query(`
      CREATE TABLE wallets (
        id uuid PRIMARY KEY,
        partner_id uuid NOT NULL,
        chain text NOT NULL CHECK (chain IN ('tron')),
        asset text NOT NULL CHECK (asset IN ('USDT')),
        address text NOT NULL CHECK (length(address) BETWEEN 1 AND 128),
        label text NOT NULL DEFAULT '' CHECK (length(label) <= 100),
        status text NOT NULL CHECK (status IN ('pending_partner_approval', 'pending_service_approval', 'active', 'rejected', 'revoked')),
        screening_status text NOT NULL CHECK (screening_status IN ('pending', 'cleared', 'rejected')),
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        partner_approved_at timestamptz,
        reviewed_at timestamptz,
        revoked_at timestamptz,
        CHECK ((status = 'revoked') = (revoked_at IS NOT NULL))
      )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX wallets_live_address_unique ON wallets (partner_id, chain, address) WHERE status <> 'revoked'`,
    );
    await queryRunner.query('CREATE INDEX wallets_partner_created_idx ON wallets (partner_id, created_at DESC)');

    await queryRunner.query(`
      CREATE TABLE wallet_codes (
        id uuid PRIMARY KEY,
        wallet_id uuid NOT NULL REFERENCES wallets (id),
        admin_id uuid NOT NULL REFERENCES administrators (id),
        code_hash text NOT NULL CHECK (code_hash ~ '^[0-9a-f]{64}$'),
        status text NOT NULL CHECK (status IN ('live', 'used', 'cancelled', 'lapsed', 'superseded')),
        attempts integer NOT NULL DEFAULT 0 CHECK (attempts BETWEEN 0 AND 5),
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        closed_at timestamptz,
        CHECK ((status = 'live') = (closed_at IS NULL))
      )`);
    await queryRunner.query('CREATE INDEX wallet_codes_wallet_idx ON wallet_codes (wallet_id, created_at DESC)');
    await queryRunner.query(
      `CREATE UNIQUE INDEX wallet_codes_one_live_per_wallet ON wallet_codes (wallet_id) WHERE status = 'live'`,
    );
    await queryRunner.query(
      `CREATE INDEX wallet_codes_live_admin_idx ON wallet_codes (admin_id) WHERE status = 'live'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE wallet_codes');
    await queryRunner.query('DROP TABLE wallets');
    await queryRunner.query('DROP TABLE administrators');
  }
}
