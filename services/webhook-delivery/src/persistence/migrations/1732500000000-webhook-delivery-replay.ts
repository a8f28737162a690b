import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Replay, events held for partners without an endpoint, and endpoint health:
 *
 * - status `no_endpoint`: the event arrived while the partner had no endpoint; the
 *   delivery is kept (no timer) and opened when an endpoint is set or on a replay,
 *   so a missed event is sent late rather than never (spec 6.4);
 * - `replay_count`: how many times an operator re-opened the delivery; each replay
 *   grants a fresh round of attempts (attempt_count restarts at 0), and
 *   `delivery_attempts.round` says which round an attempt belonged to;
 * - `endpoints.consecutive_failures`: failed attempts in a row across deliveries,
 *   the basis of the "endpoint failing consistently" alert.
 */
export class WebhookDeliveryReplayMigration1732500000000 implements MigrationInterface {
  name = 'WebhookDeliveryReplayMigration1732500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE deliveries DROP CONSTRAINT deliveries_status_check');
    await queryRunner.query(`ALTER TABLE deliveries ADD CONSTRAINT deliveries_status_check
      CHECK (status IN ('pending', 'delivering', 'delivered', 'dead', 'no_endpoint'))`);
    // A delivery held for a partner without an endpoint had nowhere it was meant to go.
    await queryRunner.query('ALTER TABLE deliveries ALTER COLUMN endpoint_url DROP NOT NULL');
    await queryRunner.query(
      'ALTER TABLE deliveries ADD COLUMN replay_count integer NOT NULL DEFAULT 0 CHECK (replay_count >= 0)',
    );
    await queryRunner.query(
      `CREATE INDEX deliveries_no_endpoint_idx ON deliveries (partner_id, created_at) WHERE status = 'no_endpoint'`,
    );
    await queryRunner.query(
      'ALTER TABLE delivery_attempts ADD COLUMN round integer NOT NULL DEFAULT 0 CHECK (round >= 0)',
    );
    await queryRunner.query(
      'ALTER TABLE endpoints ADD COLUMN consecutive_failures integer NOT NULL DEFAULT 0 CHECK (consecutive_failures >= 0)',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE endpoints DROP COLUMN consecutive_failures');
    await queryRunner.query('ALTER TABLE delivery_attempts DROP COLUMN round');
    await queryRunner.query('DROP INDEX deliveries_no_endpoint_idx');
    await queryRunner.query('ALTER TABLE deliveries DROP COLUMN replay_count');
    await queryRunner.query(
      `DELETE FROM delivery_attempts WHERE delivery_id IN (SELECT delivery_id FROM deliveries WHERE status = 'no_endpoint')`,
    );
    await queryRunner.query(`DELETE FROM deliveries WHERE status = 'no_endpoint'`);
    await queryRunner.query('ALTER TABLE deliveries ALTER COLUMN endpoint_url SET NOT NULL');
    await queryRunner.query('ALTER TABLE deliveries DROP CONSTRAINT deliveries_status_check');
    await queryRunner.query(`ALTER TABLE deliveries ADD CONSTRAINT deliveries_status_check
      CHECK (status IN ('pending', 'delivering', 'delivered', 'dead'))`);
  }
}
