import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The `webhooks` scope (retrying the partner's own webhook deliveries). A
 * credential issued with every scope there was keeps holding every scope, so
 * it gains `webhooks`; a credential the operator narrowed stays narrowed.
 */
export class GatewayWebhooksScopeMigration1796400000000 implements MigrationInterface {
  name = 'GatewayWebhooksScopeMigration1796400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE credentials DROP CONSTRAINT credentials_scopes_check');
    await queryRunner.query(`ALTER TABLE credentials ADD CONSTRAINT credentials_scopes_check CHECK (
      cardinality(scopes) > 0
      AND scopes <@ ARRAY['read', 'trade', 'payouts', 'wallets', 'funding', 'collections', 'sandbox', 'webhooks']::text[])`);
    await queryRunner.query(`UPDATE credentials SET scopes = scopes || ARRAY['webhooks']
      WHERE scopes @> ARRAY['read', 'trade', 'payouts', 'wallets', 'funding', 'collections', 'sandbox']::text[]`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `UPDATE credentials SET scopes = array_remove(scopes, 'webhooks') WHERE 'webhooks' = ANY(scopes)`,
    );
    await queryRunner.query('ALTER TABLE credentials DROP CONSTRAINT credentials_scopes_check');
    await queryRunner.query(`ALTER TABLE credentials ADD CONSTRAINT credentials_scopes_check CHECK (
      cardinality(scopes) > 0
      AND scopes <@ ARRAY['read', 'trade', 'payouts', 'wallets', 'funding', 'collections', 'sandbox']::text[])`);
  }
}
