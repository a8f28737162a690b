import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The step that gives committed deliveries their feed positions, as one
 * function: the service calls it in a single statement (one round trip, one
 * implicit transaction) instead of opening a transaction, taking the lock,
 * positioning and committing in four.
 *
 * Same step as before, in the same order: the advisory transaction lock first
 * (the key every replica, of this release or the one before it, serialises
 * on), then the numbering. The function is VOLATILE, so the numbering
 * statement reads with a snapshot taken after the lock is held: it sees every
 * position the previous step committed, and max + 1 never repeats one. Rows
 * another statement holds are skipped (left for the next step), never waited on.
 */
export class WebhookDeliveryFeedAssignFunctionMigration1796500000000 implements MigrationInterface {
  name = 'WebhookDeliveryFeedAssignFunctionMigration1796500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION assign_feed_positions(p_limit integer) RETURNS integer LANGUAGE plpgsql VOLATILE AS $$
      DECLARE
        assigned integer;
      BEGIN
        PERFORM pg_advisory_xact_lock(7007001);
        WITH base AS (SELECT coalesce(max(feed_position), 0) AS top FROM deliveries),
        next AS (
          SELECT delivery_id, created_at FROM deliveries
           WHERE feed_position IS NULL
           ORDER BY created_at, delivery_id
           LIMIT p_limit
           FOR UPDATE SKIP LOCKED
        ), numbered AS (
          SELECT delivery_id, (SELECT top FROM base) + row_number() OVER (ORDER BY created_at, delivery_id) AS position FROM next
        )
        UPDATE deliveries d SET feed_position = n.position
          FROM numbered n WHERE d.delivery_id = n.delivery_id;
        GET DIAGNOSTICS assigned = ROW_COUNT;
        RETURN assigned;
      END $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP FUNCTION assign_feed_positions(integer)');
  }
}
