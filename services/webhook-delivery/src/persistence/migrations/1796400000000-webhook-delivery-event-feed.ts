import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The partner's events feed: every delivery row is one event the partner's
 * webhooks carry, and `feed_position` is its place in that partner's feed.
 *
 * Positions are not assigned at insert. A sequence value taken at insert can
 * commit out of order (a transaction holding 10 commits after one holding 11),
 * so a reader paging `position > cursor` could pass 10 before it is visible and
 * never see it. Instead one serialised step (an advisory transaction lock) gives
 * committed rows the next positions, max + 1, …: a step starts only after the
 * previous one committed, so positions become visible in their order and a
 * reader that has seen position p has seen every position below p.
 *
 * Rows already there are positioned by the same step after the upgrade, oldest
 * first; the column stays null until then (the feed does not show them yet).
 */
export class WebhookDeliveryEventFeedMigration1796400000000 implements MigrationInterface {
  name = 'WebhookDeliveryEventFeedMigration1796400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE deliveries ADD COLUMN feed_position bigint CHECK (feed_position >= 1)');
    // The step reads max(feed_position) and finds unpositioned rows oldest first.
    await queryRunner.query('CREATE UNIQUE INDEX deliveries_feed_position_key ON deliveries (feed_position)');
    await queryRunner.query(
      'CREATE INDEX deliveries_unpositioned_idx ON deliveries (created_at, delivery_id) WHERE feed_position IS NULL',
    );
    // A partner's feed, all types or one.
    await queryRunner.query(
      'CREATE INDEX deliveries_partner_feed_idx ON deliveries (partner_id, feed_position) WHERE feed_position IS NOT NULL',
    );
    await queryRunner.query(
      'CREATE INDEX deliveries_partner_type_feed_idx ON deliveries (partner_id, event_type, feed_position) WHERE feed_position IS NOT NULL',
    );
    // Partners' own retries, counted per partner over the last minute.
    await queryRunner.query(`
      CREATE TABLE partner_retries (
        id bigserial PRIMARY KEY,
        partner_id uuid NOT NULL,
        delivery_id uuid NOT NULL REFERENCES deliveries (delivery_id),
        requested_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query('CREATE INDEX partner_retries_partner_idx ON partner_retries (partner_id, requested_at)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE partner_retries');
    await queryRunner.query('DROP INDEX deliveries_partner_type_feed_idx');
    await queryRunner.query('DROP INDEX deliveries_partner_feed_idx');
    await queryRunner.query('DROP INDEX deliveries_unpositioned_idx');
    await queryRunner.query('DROP INDEX deliveries_feed_position_key');
    await queryRunner.query('ALTER TABLE deliveries DROP COLUMN feed_position');
  }
}
