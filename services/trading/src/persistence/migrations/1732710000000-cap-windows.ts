import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The rolling 24-hour cap counted by the minute, so a reservation no longer
 * sums every usage of the partner's last 24 hours (domain/cap-window.ts has
 * the rules).
 *
 * - cap_usage_buckets: per partner and UTC minute, the KES of the unreleased
 *   usages created in that minute (only minutes still in the partner's window).
 * - cap_windows: per partner, the window's first minute (`counted_from`) and
 *   the KES of its buckets (`open_kes`). A reservation moves `counted_from`
 *   forward, deleting the buckets that left the window and subtracting them;
 *   each bucket is added once and subtracted once.
 *
 * Triggers on cap_usages keep both: every insert, release (update) or delete
 * of a usage changes its minute's bucket and the window total, when that minute
 * is still in the window. The usage rows stay the record (idempotency on
 * usage_id, audit) and are written exactly as before, so during a rolling
 * deploy the previous release, which sums cap_usages under the same
 * partner_profiles lock, and this one agree on every usage.
 *
 * Lock order, for every writer: partner_profiles (reservations), then the
 * cap_windows row, then buckets. A release takes the cap_windows row before
 * any bucket, so it never deadlocks with a reservation.
 *
 * The statement-level triggers (transition tables) fold a bulk insert into one
 * change per partner and minute: seeding 100,000 usages updates the window row
 * once per statement, not once per usage.
 */
export class CapWindowsMigration1732710000000 implements MigrationInterface {
  name = 'CapWindowsMigration1732710000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // No usage may be written between the backfill's read and the triggers' creation.
    await queryRunner.query('LOCK TABLE cap_usages IN SHARE ROW EXCLUSIVE MODE');
    await queryRunner.query(`
      CREATE FUNCTION cap_bucket_start(at timestamptz) RETURNS timestamptz
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        RETURN date_bin('1 minute', at, timestamptz '1970-01-01 00:00:00+00')`);
    await queryRunner.query(`
      CREATE TABLE cap_windows (
        partner_id uuid PRIMARY KEY,
        open_kes numeric(24, 2) NOT NULL CHECK (open_kes >= 0),
        counted_from timestamptz NOT NULL CHECK (counted_from = cap_bucket_start(counted_from))
      )`);
    await queryRunner.query(`
      CREATE TABLE cap_usage_buckets (
        partner_id uuid NOT NULL,
        bucket_start timestamptz NOT NULL CHECK (bucket_start = cap_bucket_start(bucket_start)),
        reserved_kes numeric(24, 2) NOT NULL CHECK (reserved_kes >= 0),
        PRIMARY KEY (partner_id, bucket_start)
      )`);
    await queryRunner.query(COUNT_CHANGES_FUNCTION);
    await this.backfill(queryRunner);
    await this.createTriggers(queryRunner);
  }

  /**
   * Existing usages keep counting: every partner gets a window starting 24 hours
   * before the current minute, with the buckets of its open usages from then on
   * (read per partner through cap_usages_open_idx, bounded by the window).
   */
  private async backfill(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      INSERT INTO cap_usage_buckets (partner_id, bucket_start, reserved_kes)
      SELECT p.partner_id, u.bucket_start, u.reserved_kes
        FROM partner_profiles p
       CROSS JOIN LATERAL (
         SELECT cap_bucket_start(c.created_at) AS bucket_start, sum(c.amount_kes) AS reserved_kes
           FROM cap_usages c
          WHERE c.partner_id = p.partner_id AND c.released_at IS NULL
            AND c.created_at >= cap_bucket_start(now()) - interval '24 hours'
          GROUP BY 1) u`);
    await queryRunner.query(`
      INSERT INTO cap_windows (partner_id, open_kes, counted_from)
      SELECT p.partner_id, coalesce((SELECT sum(b.reserved_kes) FROM cap_usage_buckets b WHERE b.partner_id = p.partner_id), 0),
             cap_bucket_start(now()) - interval '24 hours'
        FROM partner_profiles p`);
  }

  private async createTriggers(queryRunner: QueryRunner): Promise<void> {
    const bucketOf = 'cap_bucket_start(u.created_at)';
    await queryRunner.query(`
      CREATE FUNCTION cap_usages_counted_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM cap_windows_count(array_agg(u.partner_id), array_agg(${bucketOf}), array_agg(u.amount_kes))
           FROM inserted_usages u WHERE u.released_at IS NULL HAVING count(*) > 0;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION cap_usages_counted_update() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM cap_windows_count(array_agg(u.partner_id), array_agg(${bucketOf}), array_agg(u.change_kes))
           FROM (SELECT n.partner_id, n.created_at, n.amount_kes AS change_kes FROM new_usages n WHERE n.released_at IS NULL
                 UNION ALL
                 SELECT o.partner_id, o.created_at, -o.amount_kes FROM old_usages o WHERE o.released_at IS NULL) u
         HAVING count(*) > 0;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION cap_usages_counted_delete() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM cap_windows_count(array_agg(u.partner_id), array_agg(${bucketOf}), array_agg(-u.amount_kes))
           FROM deleted_usages u WHERE u.released_at IS NULL HAVING count(*) > 0;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION cap_usages_counted_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM cap_usage_buckets;
        DELETE FROM cap_windows;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`CREATE TRIGGER cap_usages_counted_insert AFTER INSERT ON cap_usages
      REFERENCING NEW TABLE AS inserted_usages FOR EACH STATEMENT EXECUTE FUNCTION cap_usages_counted_insert()`);
    await queryRunner.query(`CREATE TRIGGER cap_usages_counted_update AFTER UPDATE ON cap_usages
      REFERENCING OLD TABLE AS old_usages NEW TABLE AS new_usages FOR EACH STATEMENT EXECUTE FUNCTION cap_usages_counted_update()`);
    await queryRunner.query(`CREATE TRIGGER cap_usages_counted_delete AFTER DELETE ON cap_usages
      REFERENCING OLD TABLE AS deleted_usages FOR EACH STATEMENT EXECUTE FUNCTION cap_usages_counted_delete()`);
    await queryRunner.query(`CREATE TRIGGER cap_usages_counted_truncate AFTER TRUNCATE ON cap_usages
      FOR EACH STATEMENT EXECUTE FUNCTION cap_usages_counted_truncate()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const event of ['insert', 'update', 'delete', 'truncate']) {
      await queryRunner.query(`DROP TRIGGER cap_usages_counted_${event} ON cap_usages`);
      await queryRunner.query(`DROP FUNCTION cap_usages_counted_${event}()`);
    }
    await queryRunner.query('DROP FUNCTION cap_windows_count(uuid[], timestamptz[], numeric[])');
    await queryRunner.query('DROP TABLE cap_usage_buckets');
    await queryRunner.query('DROP TABLE cap_windows');
    await queryRunner.query('DROP FUNCTION cap_bucket_start(timestamptz)');
  }
}

/**
 * Applies changes of unreleased KES (one per usage: + when it starts counting,
 * − when it is released or deleted) to their partners' buckets and windows.
 * A change in a minute before the window's start is dropped: that minute no
 * longer counts. A partner's first counted usage creates its window, starting
 * 24 hours before that usage's minute. A bucket driven below zero violates its
 * check: the buckets no longer match the usages, and the write stops.
 */
const COUNT_CHANGES_FUNCTION = `
  CREATE FUNCTION cap_windows_count(partner_ids uuid[], bucket_starts timestamptz[], changes_kes numeric[]) RETURNS void
  LANGUAGE plpgsql AS $$
  DECLARE
    partner record;
    window_from timestamptz;
    counted_kes numeric;
  BEGIN
    FOR partner IN
      SELECT c.partner_id, min(c.bucket_start) FILTER (WHERE c.change_kes > 0) AS first_added_bucket
        FROM unnest(partner_ids, bucket_starts, changes_kes) AS c(partner_id, bucket_start, change_kes)
       GROUP BY c.partner_id ORDER BY c.partner_id
    LOOP
      SELECT w.counted_from INTO window_from FROM cap_windows w WHERE w.partner_id = partner.partner_id FOR UPDATE;
      IF NOT FOUND THEN
        CONTINUE WHEN partner.first_added_bucket IS NULL;
        INSERT INTO cap_windows (partner_id, open_kes, counted_from)
        VALUES (partner.partner_id, 0, partner.first_added_bucket - interval '24 hours')
        ON CONFLICT (partner_id) DO NOTHING;
        SELECT w.counted_from INTO STRICT window_from FROM cap_windows w WHERE w.partner_id = partner.partner_id FOR UPDATE;
      END IF;
      -- The window row is locked: no other writer touches this partner's buckets meanwhile.
      WITH changes AS (
        SELECT c.bucket_start, sum(c.change_kes) AS change_kes
          FROM unnest(partner_ids, bucket_starts, changes_kes) AS c(partner_id, bucket_start, change_kes)
         WHERE c.partner_id = partner.partner_id AND c.bucket_start >= window_from
         GROUP BY c.bucket_start HAVING sum(c.change_kes) <> 0
      ), changed AS (
        UPDATE cap_usage_buckets b SET reserved_kes = b.reserved_kes + changes.change_kes
          FROM changes WHERE b.partner_id = partner.partner_id AND b.bucket_start = changes.bucket_start
        RETURNING b.bucket_start
      )
      INSERT INTO cap_usage_buckets (partner_id, bucket_start, reserved_kes)
      SELECT partner.partner_id, changes.bucket_start, changes.change_kes FROM changes
       WHERE changes.bucket_start NOT IN (SELECT changed.bucket_start FROM changed);
      SELECT coalesce(sum(c.change_kes), 0) INTO counted_kes
        FROM unnest(partner_ids, bucket_starts, changes_kes) AS c(partner_id, bucket_start, change_kes)
       WHERE c.partner_id = partner.partner_id AND c.bucket_start >= window_from;
      IF counted_kes <> 0 THEN
        UPDATE cap_windows SET open_kes = open_kes + counted_kes WHERE partner_id = partner.partner_id;
      END IF;
    END LOOP;
  END $$`;
