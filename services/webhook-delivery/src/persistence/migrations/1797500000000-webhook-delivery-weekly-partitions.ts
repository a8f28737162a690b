import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Deliveries and their attempts, the fastest-growing tables, become range-partitioned
 * by week (docs/retention.md, "Partitions"): removing a week past the window is
 * dropping two partitions, not deleting millions of rows in batches.
 *
 * - `webhook_deliveries`, partitioned by `created_at` (the event's own creation
 *   time, which the producer's outbox row fixes, so a redelivered bus message
 *   lands on the same key), and `webhook_delivery_attempts`, partitioned by
 *   `delivery_created_at` (its delivery's `created_at`), with the same weekly
 *   bounds: a delivery's attempts sit in the partition of the same week and go
 *   with it.
 * - No row moves. The existing tables become the DEFAULT partitions, under their
 *   own names, so the release before this one (which reads and writes
 *   `deliveries` and `delivery_attempts`) keeps working on them unchanged during
 *   the rollout: every row created before the cutover (the Monday at least a week
 *   ahead, or this week's Monday on an empty table) lives in them, which a CHECK
 *   states; weekly partitions start at the cutover. `deliveries` keeps its own
 *   UNIQUE (event_id, partner_id) and primary key, so an event first recorded
 *   before the upgrade is still recognised when its message is redelivered after.
 * - Uniqueness on a partitioned table must include the partition key: (event_id,
 *   partner_id, created_at) is the delivery-per-event-and-partner key (created_at
 *   is a function of the event), (delivery_id, created_at) the row key. Feed
 *   positions stay unique through the serialised step that gives them (max + 1
 *   under one lock); no unique index restates it (one could only be unique per
 *   week). The index that step reads its top from is on `feed_position + 0`, so
 *   that only a partner's own index gives the feed's order; the plain position
 *   index of the default partition is dropped for the same reason.
 * - Foreign keys to a partitioned table would make every partition drop scan the
 *   referencing table under a lock that stops inserts, so attempts and partner
 *   retries no longer reference deliveries: attempts are written by the statement
 *   that holds their delivery's lease and are dropped with it; partner retries only
 *   serve a one-minute count.
 *
 * Cost on a large table (the deploy runs it while the previous release serves):
 * three indexes built CONCURRENTLY on `deliveries` (minutes per 10 million
 * rows, no lock that blocks writes), one validating scan for each CHECK (SHARE
 * UPDATE EXCLUSIVE: reads and writes go on), then one short transaction of catalog
 * changes (attaching a table whose CHECK already proves its rows fit needs no scan;
 * the parents' indexes adopt the existing ones, none is built), then the old position
 * index dropped CONCURRENTLY. Nothing is copied.
 */
const CUTOVER_WEEKS_AHEAD_SQL = `date_trunc('week', now() AT TIME ZONE 'UTC' + interval '7 days') AT TIME ZONE 'UTC' + interval '7 days'`;
const THIS_WEEK_SQL = `date_trunc('week', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`;
/** Weeks created ahead of the cutover here; the retention worker keeps DELIVERY_PARTITIONS_AHEAD_WEEKS ahead after. */
const WEEKS_CREATED = 5;

const LEGACY_INDEXES = [
  'CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS deliveries_id_created_key ON deliveries (delivery_id, created_at)',
  'CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS deliveries_event_partner_created_key ON deliveries (event_id, partner_id, created_at)',
  'CREATE INDEX CONCURRENTLY IF NOT EXISTS deliveries_feed_top_idx ON deliveries ((feed_position + 0))',
];

/**
 * The position index of 1796400000000, dropped once the parent's (above) serves the feed step:
 * left on the default partition, the planner would walk it for a partner holding much of the
 * table and filter every other partner's rows out (thousands of rows for a page of a hundred).
 */
const LEGACY_POSITION_INDEX_DROP = 'DROP INDEX CONCURRENTLY IF EXISTS deliveries_feed_position_key';

/** The parents' indexes: each adopts the equal index of the default partition (built above or by earlier migrations). */
const PARENT_INDEXES = [
  'CREATE UNIQUE INDEX webhook_deliveries_id_key ON webhook_deliveries (delivery_id, created_at)',
  'CREATE UNIQUE INDEX webhook_deliveries_event_partner_key ON webhook_deliveries (event_id, partner_id, created_at)',
  // On `feed_position + 0`, not the column: it answers the feed step's max(feed_position + 0) but cannot
  // give the feed's order by feed_position, so a partner's page is always read along the partner's own
  // index (partner_feed_idx), however much of a week one partner holds.
  'CREATE INDEX webhook_deliveries_feed_top_idx ON webhook_deliveries ((feed_position + 0))',
  `CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`,
  `CREATE INDEX webhook_deliveries_leased_idx ON webhook_deliveries (partner_id, next_attempt_at) WHERE status = 'delivering'`,
  'CREATE INDEX webhook_deliveries_partner_created_idx ON webhook_deliveries (partner_id, created_at DESC, delivery_id DESC)',
  `CREATE INDEX webhook_deliveries_no_endpoint_idx ON webhook_deliveries (partner_id, created_at) WHERE status = 'no_endpoint'`,
  'CREATE INDEX webhook_deliveries_unpositioned_idx ON webhook_deliveries (created_at, delivery_id) WHERE feed_position IS NULL',
  'CREATE INDEX webhook_deliveries_partner_feed_idx ON webhook_deliveries (partner_id, feed_position) WHERE feed_position IS NOT NULL',
  'CREATE INDEX webhook_deliveries_partner_type_feed_idx ON webhook_deliveries (partner_id, event_type, feed_position) WHERE feed_position IS NOT NULL',
  'CREATE INDEX webhook_deliveries_partner_status_created_idx ON webhook_deliveries (partner_id, status, created_at DESC, delivery_id DESC)',
  `CREATE INDEX webhook_deliveries_finished_created_idx ON webhook_deliveries (created_at)
     WHERE status IN ('delivered', 'dead', 'no_endpoint') AND feed_position IS NOT NULL`,
  'CREATE INDEX webhook_delivery_attempts_delivery_idx ON webhook_delivery_attempts (delivery_id, attempt_number)',
];

/** The feed step of 1796500000000 on the partitioned table (the previous release calls the same function). */
const ASSIGN_FEED_POSITIONS = `
  CREATE OR REPLACE FUNCTION assign_feed_positions(p_limit integer) RETURNS integer LANGUAGE plpgsql VOLATILE AS $$
  DECLARE
    assigned integer;
  BEGIN
    PERFORM pg_advisory_xact_lock(7007001);
    WITH base AS (SELECT coalesce(max(feed_position + 0), 0) AS top FROM webhook_deliveries),
    next AS (
      SELECT delivery_id, created_at FROM webhook_deliveries
       WHERE feed_position IS NULL
       ORDER BY created_at, delivery_id
       LIMIT p_limit
       FOR UPDATE SKIP LOCKED
    ), numbered AS (
      SELECT delivery_id, created_at, (SELECT top FROM base) + row_number() OVER (ORDER BY created_at, delivery_id) AS position FROM next
    )
    UPDATE webhook_deliveries d SET feed_position = n.position
      FROM numbered n WHERE d.delivery_id = n.delivery_id AND d.created_at = n.created_at;
    GET DIAGNOSTICS assigned = ROW_COUNT;
    RETURN assigned;
  END $$`;

export class WebhookDeliveryWeeklyPartitionsMigration1797500000000 implements MigrationInterface {
  name = 'WebhookDeliveryWeeklyPartitionsMigration1797500000000';
  transaction = false as const;

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const statement of LEGACY_INDEXES) await queryRunner.query(statement);
    await queryRunner.query('ALTER TABLE delivery_attempts ADD COLUMN IF NOT EXISTS delivery_created_at timestamptz');
    const cutover = await this.cutover(queryRunner);
    // Validated in their own transactions: a scan that lets writes go on.
    await queryRunner.query('ALTER TABLE deliveries VALIDATE CONSTRAINT deliveries_before_partitions');
    await queryRunner.query('ALTER TABLE delivery_attempts VALIDATE CONSTRAINT delivery_attempts_before_partitions');
    await queryRunner.startTransaction();
    try {
      await this.partition(queryRunner, cutover);
      await queryRunner.commitTransaction();
    } catch (error) {
      await queryRunner.rollbackTransaction();
      throw error;
    }
    await queryRunner.query(LEGACY_POSITION_INDEX_DROP);
  }

  /** The first weekly partition's start, stated as a CHECK on both tables (NOT VALID: validated after, without blocking). */
  private async cutover(queryRunner: QueryRunner): Promise<string> {
    const [row] = (await queryRunner.query(
      `SELECT (CASE WHEN EXISTS (SELECT 1 FROM deliveries) THEN ${CUTOVER_WEEKS_AHEAD_SQL} ELSE ${THIS_WEEK_SQL} END)::text AS cutover,
              EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'deliveries_before_partitions') AS done,
              (SELECT substring(pg_get_constraintdef(oid) FROM '''([^'']+)''') FROM pg_constraint
                WHERE conname = 'deliveries_before_partitions') AS earlier`,
    )) as Array<{ cutover: string; done: boolean; earlier: string | null }>;
    if (row!.done) return row!.earlier!; // a run that stopped part-way: keep its cutover
    const cutover = row!.cutover;
    await queryRunner.query(
      `ALTER TABLE deliveries ADD CONSTRAINT deliveries_before_partitions CHECK (created_at < '${cutover}') NOT VALID`,
    );
    await queryRunner.query(`ALTER TABLE delivery_attempts ADD CONSTRAINT delivery_attempts_before_partitions
      CHECK (delivery_created_at IS NULL OR delivery_created_at < '${cutover}') NOT VALID`);
    return cutover;
  }

  private async partition(queryRunner: QueryRunner, cutover: string): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE webhook_deliveries (LIKE deliveries INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY RANGE (created_at)`,
    );
    await queryRunner.query('ALTER TABLE webhook_deliveries DROP CONSTRAINT deliveries_before_partitions');
    await queryRunner.query(
      `CREATE TABLE webhook_delivery_attempts (LIKE delivery_attempts INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
         PARTITION BY RANGE (delivery_created_at)`,
    );
    await queryRunner.query(
      'ALTER TABLE webhook_delivery_attempts DROP CONSTRAINT delivery_attempts_before_partitions',
    );
    await queryRunner.query('ALTER TABLE webhook_deliveries ATTACH PARTITION deliveries DEFAULT');
    await queryRunner.query('ALTER TABLE webhook_delivery_attempts ATTACH PARTITION delivery_attempts DEFAULT');
    for (const statement of PARENT_INDEXES) await queryRunner.query(statement);
    for (let week = 0; week < WEEKS_CREATED; week += 1) {
      const [bounds] = (await queryRunner.query(
        `SELECT to_char($1::timestamptz AT TIME ZONE 'UTC' + $2 * interval '7 days', 'YYYYMMDD') AS name,
                ($1::timestamptz + $2 * interval '7 days')::text AS lower, ($1::timestamptz + ($2 + 1) * interval '7 days')::text AS upper`,
        [cutover, week],
      )) as Array<{ name: string; lower: string; upper: string }>;
      await queryRunner.query(
        `CREATE TABLE webhook_deliveries_${bounds!.name} PARTITION OF webhook_deliveries FOR VALUES FROM ('${bounds!.lower}') TO ('${bounds!.upper}')`,
      );
      await queryRunner.query(
        `CREATE TABLE webhook_delivery_attempts_${bounds!.name} PARTITION OF webhook_delivery_attempts FOR VALUES FROM ('${bounds!.lower}') TO ('${bounds!.upper}')`,
      );
    }
    await queryRunner.query(ASSIGN_FEED_POSITIONS);
    await queryRunner.query('ALTER TABLE partner_retries DROP CONSTRAINT IF EXISTS partner_retries_delivery_id_fkey');
  }

  /** Back to the unpartitioned tables, refused while a weekly partition holds a row (it would be lost). */
  async down(queryRunner: QueryRunner): Promise<void> {
    const [row] = (await queryRunner.query(
      `SELECT (SELECT count(*) FROM webhook_deliveries) - (SELECT count(*) FROM ONLY deliveries) AS weekly`,
    )) as Array<{ weekly: string }>;
    if (Number(row!.weekly) > 0) throw new Error('weekly partitions hold deliveries: move them before going back');
    await queryRunner.query('ALTER TABLE webhook_deliveries DETACH PARTITION deliveries');
    await queryRunner.query('ALTER TABLE webhook_delivery_attempts DETACH PARTITION delivery_attempts');
    await queryRunner.query('DROP TABLE webhook_delivery_attempts');
    await queryRunner.query('DROP TABLE webhook_deliveries');
    await queryRunner.query('ALTER TABLE deliveries DROP CONSTRAINT deliveries_before_partitions');
    await queryRunner.query('ALTER TABLE delivery_attempts DROP CONSTRAINT delivery_attempts_before_partitions');
    for (const name of ['deliveries_id_created_key', 'deliveries_event_partner_created_key', 'deliveries_feed_top_idx'])
      await queryRunner.query(`DROP INDEX ${name}`);
    await queryRunner.query(
      'CREATE UNIQUE INDEX IF NOT EXISTS deliveries_feed_position_key ON deliveries (feed_position)',
    );
    await queryRunner.query('ALTER TABLE delivery_attempts DROP COLUMN delivery_created_at');
    await queryRunner.query(
      'ALTER TABLE partner_retries ADD CONSTRAINT partner_retries_delivery_id_fkey FOREIGN KEY (delivery_id) REFERENCES deliveries (delivery_id) NOT VALID',
    );
    await queryRunner.query(`CREATE OR REPLACE FUNCTION assign_feed_positions(p_limit integer) RETURNS integer LANGUAGE plpgsql VOLATILE AS $$
      DECLARE assigned integer;
      BEGIN
        PERFORM pg_advisory_xact_lock(7007001);
        WITH base AS (SELECT coalesce(max(feed_position), 0) AS top FROM deliveries),
        next AS (SELECT delivery_id, created_at FROM deliveries WHERE feed_position IS NULL
                  ORDER BY created_at, delivery_id LIMIT p_limit FOR UPDATE SKIP LOCKED),
        numbered AS (SELECT delivery_id, (SELECT top FROM base) + row_number() OVER (ORDER BY created_at, delivery_id) AS position FROM next)
        UPDATE deliveries d SET feed_position = n.position FROM numbered n WHERE d.delivery_id = n.delivery_id;
        GET DIAGNOSTICS assigned = ROW_COUNT;
        RETURN assigned;
      END $$`);
  }
}
