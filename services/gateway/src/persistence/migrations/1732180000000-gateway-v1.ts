import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The gateway's partner directory and credentials. A signing secret is stored
 * only sealed (AES-256-GCM with CREDENTIAL_ENCRYPTION_KEY); the API key is the
 * primary key, so authenticating a request is one index lookup.
 */
export class GatewayV1Migration1732180000000 implements MigrationInterface {
  name = 'GatewayV1Migration1732180000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE partners (
        partner_id uuid PRIMARY KEY,
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
        rate_limit_per_minute integer NOT NULL CHECK (rate_limit_per_minute > 0),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE credentials (
        api_key text PRIMARY KEY CHECK (api_key ~ '^pk_(sandbox|live)_[A-Za-z0-9]{24}$'),
        partner_id uuid NOT NULL REFERENCES partners (partner_id),
        secret_sealed text NOT NULL CHECK (secret_sealed LIKE 'v1.%'),
        scopes text[] NOT NULL CHECK (
          cardinality(scopes) > 0
          AND scopes <@ ARRAY['read', 'trade', 'payouts', 'wallets', 'funding', 'collections', 'sandbox']::text[]
        ),
        status text NOT NULL CHECK (status IN ('active', 'revoked')),
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz,
        CHECK ((status = 'revoked') = (revoked_at IS NOT NULL))
      )`);
    await queryRunner.query('CREATE INDEX credentials_partner_id_idx ON credentials (partner_id)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE credentials');
    await queryRunner.query('DROP TABLE partners');
  }
}
