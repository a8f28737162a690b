import { MigrationInterface, QueryRunner } from 'typeorm';
import { WebhookDeliveryOrderedClaimMigration1799874000000 } from './1799874000000-webhook-delivery-ordered-claim';

/**
 * The claim reads what it claims and what is in flight, never a capped partner's due backlog.
 *
 * The claim before this walked the due rows of every partner in due order and left out partners at their
 * in-flight cap by their ids, but the walk still read each of their due rows that came before the batch:
 * a partner whose endpoint hangs with thousands of deliveries due cost every claim of every replica those
 * thousands of rows (with two replicas the cap of every partner is often full, and one replica's claims
 * read the whole backlog).
 *
 * Now the claim runs in two steps, in one statement's transaction:
 * 1. The walk in due order as before, but limited to the batch rows walked (capped partners' rows are
 *    walked and ranked past rather than filtered out, so the limit bounds what is read). When the batch
 *    is full, or the walk saw every due row, the claim is this walk: the common case costs what it did.
 * 2. Otherwise (the walk met rows of partners at their cap) the partners with pending rows are visited
 *    once each in partner order on a new partial index (partner_id, next_attempt_at) of the pending rows,
 *    one index entry a partner, and each partner with free slots gives its earliest due rows, up to its
 *    free slots. Those candidates, in due order, are locked `SKIP LOCKED` up to the rest of the batch and
 *    checked again (still pending and due) as they are locked. A capped partner costs one index entry,
 *    whatever its backlog.
 * What the two steps claim is what the walk of every due row would claim: the earliest due rows of the
 * partners below their cap, each partner's ranked after what it has in flight (read once a claim, step
 * 1's claims added to it for step 2).
 *
 * Plans stay the same whatever the statistics (a week of finished deliveries estimates one open row):
 * sorts off as before (the only sorts left are of at most a batch's candidates), JIT off (a disabled
 * node's penalty would pass jit_above_cost), and hash joins, merge joins and sequential scans off, so
 * that candidates are joined to their rows by index, one lookup each, never by a scan of every week.
 *
 * The partition indexes are built CONCURRENTLY, one per week, and attached to an index made on the
 * parent alone, so a deploy onto a large history does not block the inserts of incoming events; weeks
 * created later get theirs with the table.
 */
export class WebhookDeliveryPartnerClaimMigration1799875000000 implements MigrationInterface {
  name = 'WebhookDeliveryPartnerClaimMigration1799875000000';
  transaction = false as const;

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX IF NOT EXISTS webhook_deliveries_partner_due_idx ON ONLY webhook_deliveries (partner_id, next_attempt_at)
       WHERE status = 'pending'`,
    );
    const unindexed = (await queryRunner.query(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'webhook_deliveries'::regclass
          AND NOT EXISTS (SELECT 1 FROM pg_inherits ii JOIN pg_index x ON x.indexrelid = ii.inhrelid
                           WHERE ii.inhparent = 'webhook_deliveries_partner_due_idx'::regclass AND x.indrelid = c.oid)`,
    )) as Array<{ name: string }>;
    for (const { name } of unindexed) {
      await queryRunner.query(
        `CREATE INDEX CONCURRENTLY IF NOT EXISTS ${name}_partner_due_idx ON ${name} (partner_id, next_attempt_at)
         WHERE status = 'pending'`,
      );
      await queryRunner.query(
        `ALTER INDEX webhook_deliveries_partner_due_idx ATTACH PARTITION ${name}_partner_due_idx`,
      );
    }
    await queryRunner.query(CLAIM_FUNCTION_SQL);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP FUNCTION claim_due_deliveries(integer, integer, integer)');
    await new WebhookDeliveryOrderedClaimMigration1799874000000().up(queryRunner);
    await queryRunner.query('DROP INDEX IF EXISTS webhook_deliveries_partner_due_idx');
  }
}

// What each partner has in flight: every leased row (and expired leases waiting for the reaper), read once a
// claim; step 2 adds step 1's claims to it.
const IN_FLIGHT_SQL = `
  SELECT x.partner_id, count(*)::int AS in_flight
  FROM webhook_deliveries x
  WHERE x.status = 'delivering' AND x.next_attempt_at > now()
  GROUP BY x.partner_id`;

// Step 2 looks each candidate up by its key alone, in due order, until the rest of the batch is locked:
// driven by the candidates, never by a walk of the due rows (a week's statistics count too few of them to
// tell the walk from a lookup). Locking returns a row as it is now, so a row another replica claimed in
// the meantime fails the check after it (OFFSET 0 keeps the check out of the lookup).
// Columns and the lease written are those of the claim before; `v_` names keep the function's variables
// apart from columns (`use_column` resolves the output columns' names to columns).
const CLAIM_FUNCTION_SQL = `
  CREATE OR REPLACE FUNCTION claim_due_deliveries(p_in_flight_max integer, p_limit integer, p_lease_ms integer)
  RETURNS TABLE (delivery_id uuid, created_at timestamptz, event_id uuid, partner_id uuid, event_type text, body text,
                 attempt_count integer, replay_count integer, lease_id uuid, traceparent text)
  LANGUAGE plpgsql VOLATILE
  SET enable_sort = off
  SET enable_hashjoin = off
  SET enable_mergejoin = off
  SET enable_seqscan = off
  SET jit = off
  AS $$
  #variable_conflict use_column
  DECLARE
    v_walked integer := 0;
    v_claimed integer := 0;
    v_row record;
    v_busy_partners uuid[];
    v_busy_counts integer[];
    v_claimed_partners uuid[] := '{}';
  BEGIN
    SELECT coalesce(array_agg(x.partner_id), '{}'), coalesce(array_agg(x.in_flight), '{}')
      INTO v_busy_partners, v_busy_counts
      FROM (${IN_FLIGHT_SQL}) x;
    -- Step 1: the batch's rows in due order, each partner's ranked after what it has in flight.
    FOR v_row IN
      WITH busy AS (SELECT * FROM unnest(v_busy_partners, v_busy_counts) AS b (partner_id, in_flight)), locked AS (
        SELECT d.delivery_id, d.created_at, d.partner_id, d.next_attempt_at
        FROM webhook_deliveries d
        WHERE d.status = 'pending' AND d.next_attempt_at <= now()
        ORDER BY d.next_attempt_at
        LIMIT p_limit
        FOR UPDATE OF d SKIP LOCKED
      ), ranked AS (
        SELECT l.delivery_id, l.created_at,
               coalesce(b.in_flight, 0) + row_number() OVER (PARTITION BY l.partner_id ORDER BY l.next_attempt_at, l.delivery_id) AS slot
        FROM locked l LEFT JOIN busy b ON b.partner_id = l.partner_id
      ), claimed AS (
        UPDATE webhook_deliveries d
        SET status = 'delivering', lease_id = gen_random_uuid(), next_attempt_at = now() + p_lease_ms * interval '1 millisecond'
        FROM ranked r
        WHERE d.delivery_id = r.delivery_id AND d.created_at = r.created_at AND r.slot <= p_in_flight_max
        RETURNING d.delivery_id, d.created_at, d.event_id, d.partner_id, d.event_type, d.body, d.attempt_count, d.replay_count,
                  d.lease_id, d.traceparent
      )
      SELECT w.walked, c.* FROM (SELECT count(*)::int AS walked FROM locked) w LEFT JOIN claimed c ON true
    LOOP
      v_walked := v_row.walked;
      CONTINUE WHEN v_row.delivery_id IS NULL;
      delivery_id := v_row.delivery_id; created_at := v_row.created_at; event_id := v_row.event_id;
      partner_id := v_row.partner_id; event_type := v_row.event_type; body := v_row.body;
      attempt_count := v_row.attempt_count; replay_count := v_row.replay_count; lease_id := v_row.lease_id;
      traceparent := v_row.traceparent;
      v_claimed := v_claimed + 1;
      v_claimed_partners := v_claimed_partners || v_row.partner_id;
      RETURN NEXT;
    END LOOP;
    IF v_claimed >= p_limit OR v_walked < p_limit THEN
      RETURN;
    END IF;
    -- Step 2: the walk met partners at their cap; the earliest due rows of each partner with free slots.
    RETURN QUERY
    WITH RECURSIVE busy AS (
      SELECT u.partner_id, sum(u.in_flight)::int AS in_flight
      FROM (SELECT * FROM unnest(v_busy_partners, v_busy_counts) AS b (partner_id, in_flight)
            UNION ALL SELECT c.partner_id, 1 FROM unnest(v_claimed_partners) AS c (partner_id)) u
      GROUP BY u.partner_id
    ), pending_partners AS (
      (SELECT d.partner_id FROM webhook_deliveries d WHERE d.status = 'pending' ORDER BY d.partner_id LIMIT 1)
      UNION ALL
      SELECT (SELECT d.partner_id FROM webhook_deliveries d WHERE d.status = 'pending' AND d.partner_id > p.partner_id
              ORDER BY d.partner_id LIMIT 1)
      FROM pending_partners p
      WHERE p.partner_id IS NOT NULL
    ), candidates AS (
      SELECT c.delivery_id, c.created_at, c.next_attempt_at
      FROM pending_partners p
      LEFT JOIN busy b ON b.partner_id = p.partner_id
      CROSS JOIN LATERAL (
        SELECT d.delivery_id, d.created_at, d.next_attempt_at
        FROM webhook_deliveries d
        WHERE d.partner_id = p.partner_id AND d.status = 'pending' AND d.next_attempt_at <= now()
        ORDER BY d.next_attempt_at
        LIMIT least(p_in_flight_max - coalesce(b.in_flight, 0), p_limit - v_claimed)
      ) c
      WHERE p.partner_id IS NOT NULL AND coalesce(b.in_flight, 0) < p_in_flight_max
    ), locked AS (
      SELECT l.delivery_id, l.created_at
      FROM (SELECT * FROM candidates ORDER BY next_attempt_at, delivery_id) c
      CROSS JOIN LATERAL (
        SELECT d.delivery_id, d.created_at, d.status, d.next_attempt_at
        FROM webhook_deliveries d
        WHERE d.delivery_id = c.delivery_id AND d.created_at = c.created_at
        OFFSET 0
        FOR UPDATE OF d SKIP LOCKED
      ) l
      WHERE l.status = 'pending' AND l.next_attempt_at <= now()
      LIMIT p_limit - v_claimed
    )
    UPDATE webhook_deliveries d
    SET status = 'delivering', lease_id = gen_random_uuid(), next_attempt_at = now() + p_lease_ms * interval '1 millisecond'
    FROM locked l
    WHERE d.delivery_id = l.delivery_id AND d.created_at = l.created_at
    RETURNING d.delivery_id, d.created_at, d.event_id, d.partner_id, d.event_type, d.body, d.attempt_count, d.replay_count,
              d.lease_id, d.traceparent;
  END $$`;
