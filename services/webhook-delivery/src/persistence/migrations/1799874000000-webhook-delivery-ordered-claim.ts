import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The claim of due deliveries as one function, so that it walks the due rows in due order and
 * stops at its batch whatever the statistics say.
 *
 * The walk (`status = 'pending' AND next_attempt_at <= now() ORDER BY next_attempt_at LIMIT n`)
 * spans every weekly partition, so its order comes either from merging the partitions' due
 * indexes, which stops once the batch is full, or from sorting every due row of every partition.
 * The planner picks by its estimate of the due rows, taken from each partition's statistics; a
 * partition analysed while it held finished deliveries and few open ones (a week of history,
 * the normal case) estimates a row or two, so it sorted: every claim read the whole due backlog,
 * and counted each row's partner in flight, under a burst thousands of rows a claim for a batch
 * of 32. Sorting is turned off for this function alone (the function's SET), so the walk is the
 * merge of the due indexes; the only sorts left are those nothing else can give (the batch's
 * ranking per partner, at most a batch of rows), which the planner keeps.
 *
 * The statement is otherwise the claim as it was, but for the in-flight count: read once per
 * claim over every leased row (what is in flight, and expired leases waiting for the reaper)
 * rather than once per row walked, and partners at their cap left out of the walk, as the cap
 * left them out of the batch before. PL/pgSQL keeps
 * its plan for the session, as the prepared statement did; creating or dropping a week
 * invalidates it.
 */
export class WebhookDeliveryOrderedClaimMigration1799874000000 implements MigrationInterface {
  name = 'WebhookDeliveryOrderedClaimMigration1799874000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION claim_due_deliveries(p_in_flight_max integer, p_limit integer, p_lease_ms integer)
      RETURNS TABLE (delivery_id uuid, created_at timestamptz, event_id uuid, partner_id uuid, event_type text, body text,
                     attempt_count integer, replay_count integer, lease_id uuid, traceparent text)
      LANGUAGE plpgsql VOLATILE
      SET enable_sort = off
      SET jit = off
      AS $$
      #variable_conflict use_column
      BEGIN
        RETURN QUERY
        WITH busy AS (
          SELECT x.partner_id, count(*)::int AS in_flight
          FROM webhook_deliveries x
          WHERE x.status = 'delivering' AND x.next_attempt_at > now()
          GROUP BY x.partner_id
        ), locked AS (
          SELECT d.delivery_id, d.created_at, d.partner_id, d.next_attempt_at
          FROM webhook_deliveries d
          WHERE d.status = 'pending' AND d.next_attempt_at <= now()
            AND d.partner_id <> ALL (ARRAY(SELECT b.partner_id FROM busy b WHERE b.in_flight >= p_in_flight_max))
          ORDER BY d.next_attempt_at
          LIMIT p_limit
          FOR UPDATE OF d SKIP LOCKED
        ), ranked AS (
          SELECT l.delivery_id, l.created_at,
                 coalesce(b.in_flight, 0) + row_number() OVER (PARTITION BY l.partner_id ORDER BY l.next_attempt_at, l.delivery_id) AS slot
          FROM locked l LEFT JOIN busy b ON b.partner_id = l.partner_id
        )
        UPDATE webhook_deliveries d
        SET status = 'delivering', lease_id = gen_random_uuid(), next_attempt_at = now() + p_lease_ms * interval '1 millisecond'
        FROM ranked r
        WHERE d.delivery_id = r.delivery_id AND d.created_at = r.created_at AND r.slot <= p_in_flight_max
        RETURNING d.delivery_id, d.created_at, d.event_id, d.partner_id, d.event_type, d.body, d.attempt_count, d.replay_count,
                  d.lease_id, d.traceparent;
      END $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP FUNCTION claim_due_deliveries(integer, integer, integer)');
  }
}
