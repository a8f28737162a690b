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
 * Now the claim runs in two steps, in the transaction of the call:
 * 1. The walk in due order as before, but limited to the batch rows walked (capped partners' rows are
 *    walked and ranked past rather than filtered out, so the limit bounds what is read). When the batch
 *    is full, or the walk saw every due row, the claim is this walk: the common case costs what it did.
 * 2. Otherwise (the walk met rows of partners at their cap) the partners with pending rows are visited
 *    once each in partner order on a new partial index (partner_id, next_attempt_at) of the pending rows,
 *    and each one's earliest due row read: one index entry and one row a partner with pending rows (a week
 *    holding some), whatever its backlog; that walk grows with the partners with pending rows, not with
 *    their rows. Only the partners whose earliest due row comes first can give the rest of the batch (n
 *    rows): they are taken in that order, counted in flight as they come, and the first n with free slots
 *    give their earliest due rows, up to their free slots and n (at most n times the cap candidates). Those
 *    candidates, in due order, are locked `SKIP LOCKED` up to n and checked again (still pending and due)
 *    as they are locked.
 * What the two steps claim is what the walk of every due row would claim: the earliest due rows of the
 * partners below their cap, each partner's ranked after what it has in flight.
 *
 * What a partner has in flight is counted in the statement that ranks its rows, as the claim before counted
 * it in its one statement, so a claim another replica commits meanwhile is seen no later than it was: step
 * 1 counts the partners of the rows it walked, step 2 the partners it takes rows from (and sees step 1's
 * claims as this transaction's leases). Each count reads the leased index, at most the cap of rows.
 *
 * Plans stay the same whatever the statistics (a week of finished deliveries estimates one open row):
 * sorts off as before (the sorts left are of the batch's candidates and of one row a partner with due
 * rows), JIT off (a disabled node's penalty would pass jit_above_cost), and hash joins, merge joins and
 * sequential scans off, so that candidates are joined to their rows by index, one lookup each, never by a
 * scan of every week.
 *
 * The partition indexes are built CONCURRENTLY, one per week, and attached to an index made on the
 * parent alone, so a deploy onto a large history does not block the inserts of incoming events; weeks
 * created later get theirs with the table. The builds run without the pool's statement timeout; a build
 * stopped on an earlier run left an invalid index, dropped and built again; the migration fails unless the
 * parent's index ends valid (every week has its index).
 */
export class WebhookDeliveryPartnerClaimMigration1799875000000 implements MigrationInterface {
  name = 'WebhookDeliveryPartnerClaimMigration1799875000000';
  transaction = false as const;

  async up(queryRunner: QueryRunner): Promise<void> {
    // A week's index may take longer than the pool's statement timeout; a build it stopped would leave an
    // invalid index behind. The lock waits stay short: the parent's index and its attachments block inserts.
    await queryRunner.query('SET statement_timeout = 0');
    await queryRunner.query(`SET lock_timeout = '${PARENT_LOCK_TIMEOUT}'`);
    try {
      await queryRunner.query(
        `CREATE INDEX IF NOT EXISTS webhook_deliveries_partner_due_idx ON ONLY webhook_deliveries (partner_id, next_attempt_at)
         WHERE status = 'pending'`,
      );
      for (const { name } of await unindexedWeeks(queryRunner)) await indexWeek(queryRunner, name);
      await assertParentIndexValid(queryRunner);
      await queryRunner.query(CLAIM_FUNCTION_SQL);
    } finally {
      await queryRunner.query('RESET statement_timeout');
      await queryRunner.query('RESET lock_timeout');
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP FUNCTION claim_due_deliveries(integer, integer, integer)');
    await new WebhookDeliveryOrderedClaimMigration1799874000000().up(queryRunner);
    await queryRunner.query('DROP INDEX IF EXISTS webhook_deliveries_partner_due_idx');
  }
}

/** How long the migration waits for a lock that blocks inserts (the parent's index, an attachment). */
const PARENT_LOCK_TIMEOUT = '2s';

/** The partitions with no index attached to the parent's (every week, on a first run). */
async function unindexedWeeks(queryRunner: QueryRunner): Promise<Array<{ name: string }>> {
  return (await queryRunner.query(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'webhook_deliveries'::regclass
        AND NOT EXISTS (SELECT 1 FROM pg_inherits ii JOIN pg_index x ON x.indexrelid = ii.inhrelid
                         WHERE ii.inhparent = 'webhook_deliveries_partner_due_idx'::regclass AND x.indrelid = c.oid)`,
  )) as Array<{ name: string }>;
}

/**
 * One week's index, built without blocking inserts, then attached. A build stopped before (a timeout, a
 * deploy killed) leaves an invalid index under the name, which `IF NOT EXISTS` would keep and the
 * attachment accept: it is dropped and built again. The build waits on older transactions, not on locks
 * that block inserts, so it has no lock timeout.
 */
async function indexWeek(queryRunner: QueryRunner, week: string): Promise<void> {
  const index = `${week}_partner_due_idx`;
  const [existing] = (await queryRunner.query(
    'SELECT x.indisvalid AS valid FROM pg_index x WHERE x.indexrelid = to_regclass($1)',
    [index],
  )) as Array<{ valid: boolean }>;
  await queryRunner.query('SET lock_timeout = 0');
  if (existing && !existing.valid) await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS ${index}`);
  await queryRunner.query(
    `CREATE INDEX CONCURRENTLY IF NOT EXISTS ${index} ON ${week} (partner_id, next_attempt_at) WHERE status = 'pending'`,
  );
  await queryRunner.query(`SET lock_timeout = '${PARENT_LOCK_TIMEOUT}'`);
  await queryRunner.query(`ALTER INDEX webhook_deliveries_partner_due_idx ATTACH PARTITION ${index}`);
}

/** The claim's step 2 needs the index on every week: the migration fails rather than be recorded without it. */
async function assertParentIndexValid(queryRunner: QueryRunner): Promise<void> {
  const [parent] = (await queryRunner.query(
    `SELECT x.indisvalid AS valid FROM pg_index x WHERE x.indexrelid = 'webhook_deliveries_partner_due_idx'::regclass`,
  )) as Array<{ valid: boolean }>;
  if (!parent?.valid) {
    throw new Error('webhook_deliveries_partner_due_idx is not valid: a week has no valid index attached');
  }
}

/**
 * What a partner has in flight, read in the statement that ranks its rows (so under the same snapshot as
 * the rows it locks) along the leased index: its unexpired leases, at most the cap of them. An expired
 * lease no longer counts: its delivery is the reaper's to put back.
 */
const inFlightOf = (partner: string) => `(
  SELECT count(*)::int FROM (
    SELECT 1 FROM webhook_deliveries x
    WHERE x.partner_id = ${partner} AND x.status = 'delivering' AND x.next_attempt_at > now()
    LIMIT p_in_flight_max) x)`;

// Step 2 looks each candidate up by its key alone, in due order, until the rest of the batch is locked:
// driven by the candidates, never by a walk of the due rows (a week's statistics count too few of them to
// tell the walk from a lookup). Locking returns a row as it is now, so a row another replica claimed in
// the meantime fails the check after it (OFFSET 0 keeps the check out of the lookup).
// Only the partners whose earliest due row comes first can give the rest of the batch: if a row of partner
// P is among the first n rows the claim may take, every partner with free slots whose earliest due row
// comes before P's has a row ahead of it, so fewer than n such partners come before P. The partners are
// taken in the order of their earliest due row (the sort is of one row a partner with due rows), counted
// in flight as they come (OFFSET 0 keeps the count above the sort, so it stops with the LIMIT), and the
// first n with free slots give their earliest due rows, up to their free slots and n.
// A partner's due rows are read along the partner index: the partner is bounded on both sides rather than
// equated, so that the order asked (partner, then due time) is one only that index gives; with an equality
// the planner may read the due index in due time order and filter on the partner, every due row of the
// partners before it (a week's statistics make both look alike).
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
    v_rest integer;
    v_row record;
  BEGIN
    -- Step 1: the batch's rows in due order, each partner's ranked after what it has in flight.
    FOR v_row IN
      WITH locked AS (
        SELECT d.delivery_id, d.created_at, d.partner_id, d.next_attempt_at
        FROM webhook_deliveries d
        WHERE d.status = 'pending' AND d.next_attempt_at <= now()
        ORDER BY d.next_attempt_at
        LIMIT p_limit
        FOR UPDATE OF d SKIP LOCKED
      ), busy AS (
        SELECT p.partner_id, ${inFlightOf('p.partner_id')} AS in_flight
        FROM (SELECT DISTINCT l.partner_id FROM locked l) p
      ), ranked AS (
        SELECT l.delivery_id, l.created_at,
               b.in_flight + row_number() OVER (PARTITION BY l.partner_id ORDER BY l.next_attempt_at, l.delivery_id) AS slot
        FROM locked l JOIN busy b ON b.partner_id = l.partner_id
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
      RETURN NEXT;
    END LOOP;
    IF v_claimed >= p_limit OR v_walked < p_limit THEN
      RETURN;
    END IF;
    v_rest := p_limit - v_claimed;
    -- Step 2: the walk met partners at their cap; the earliest due rows of the partners with free slots whose
    -- earliest due rows come first. Step 1's claims are this transaction's leases, so the count sees them.
    RETURN QUERY
    WITH RECURSIVE pending_partners AS (
      (SELECT d.partner_id FROM webhook_deliveries d WHERE d.status = 'pending' ORDER BY d.partner_id LIMIT 1)
      UNION ALL
      SELECT (SELECT d.partner_id FROM webhook_deliveries d WHERE d.status = 'pending' AND d.partner_id > p.partner_id
              ORDER BY d.partner_id LIMIT 1)
      FROM pending_partners p
      WHERE p.partner_id IS NOT NULL
    ), first_due AS (
      SELECT p.partner_id
      FROM pending_partners p
      CROSS JOIN LATERAL (
        SELECT d.next_attempt_at
        FROM webhook_deliveries d
        WHERE d.partner_id >= p.partner_id AND d.partner_id <= p.partner_id AND d.status = 'pending'
          AND d.next_attempt_at <= now()
        ORDER BY d.partner_id, d.next_attempt_at
        LIMIT 1
      ) f
      WHERE p.partner_id IS NOT NULL
      ORDER BY f.next_attempt_at, p.partner_id
      OFFSET 0
    ), nearest AS (
      SELECT o.partner_id, o.free
      FROM (SELECT f.partner_id, p_in_flight_max - ${inFlightOf('f.partner_id')} AS free FROM first_due f OFFSET 0) o
      WHERE o.free > 0
      LIMIT v_rest
    ), candidates AS (
      SELECT c.delivery_id, c.created_at, c.next_attempt_at
      FROM nearest n
      CROSS JOIN LATERAL (
        SELECT d.delivery_id, d.created_at, d.next_attempt_at
        FROM webhook_deliveries d
        WHERE d.partner_id >= n.partner_id AND d.partner_id <= n.partner_id AND d.status = 'pending'
          AND d.next_attempt_at <= now()
        ORDER BY d.partner_id, d.next_attempt_at
        LIMIT least(n.free, v_rest)
      ) c
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
      LIMIT v_rest
    )
    UPDATE webhook_deliveries d
    SET status = 'delivering', lease_id = gen_random_uuid(), next_attempt_at = now() + p_lease_ms * interval '1 millisecond'
    FROM locked l
    WHERE d.delivery_id = l.delivery_id AND d.created_at = l.created_at
    RETURNING d.delivery_id, d.created_at, d.event_id, d.partner_id, d.event_type, d.body, d.attempt_count, d.replay_count,
              d.lease_id, d.traceparent;
  END $$`;
