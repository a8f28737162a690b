import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The default partitions of deliveries and attempts (the tables from before the partitioning,
 * `deliveries` and `delivery_attempts`) become bounded range partitions, FROM (MINVALUE) TO the
 * first week, so that the parents have no DEFAULT partition any more: PostgreSQL refuses
 * `DETACH PARTITION … CONCURRENTLY` beside one, and without it dropping a week past the window
 * needs ACCESS EXCLUSIVE on the parent, which stops inserts and claims while it waits for its lock
 * (docs/retention.md, "Partitions").
 *
 * No row moves: the old tables already hold only rows before the first week (their CHECK says
 * so), so each is attached back as the range it holds. What the range needs first:
 * - attempts filed under their delivery's `created_at`: the attempts recorded before the
 *   partitioning have none (NULL goes to no range partition). Backfilled in batches of
 *   BACKFILL_BATCH rows along the primary key (one short transaction each; run again, it only
 *   fills what is still empty), from the delivery's row in `deliveries` (which their foreign key
 *   keeps there). A trigger fills it for rows the release before the partitioning still writes
 *   into `delivery_attempts` during the rollout.
 * - a CHECK stating the range on attempts (NOT VALID, then validated: a scan under SHARE UPDATE
 *   EXCLUSIVE, writes go on), so that attaching skips its scan; `deliveries` has one already.
 * Then one short transaction per table (`lock_timeout` LOCK_TIMEOUT, retried): detach the default
 * partition (ACCESS EXCLUSIVE on the parent, a catalog change) and attach it as the range. The
 * parents' indexes adopt the table's own again; nothing is built.
 */
const BACKFILL_BATCH = 5_000;
const LOCK_TIMEOUT = '3s';
const SWAP_TRIES = 20;
const SWAP_RETRY_DELAY_MS = 1_000;

/** Its delivery's `created_at`: the attempts from before reference `deliveries` (their foreign key still holds). */
const FILL_FROM_DELIVERY = (attempt: string) =>
  `(SELECT d.created_at FROM ONLY deliveries d WHERE d.delivery_id = ${attempt}.delivery_id)`;

const PARTS = [
  { parent: 'webhook_deliveries', table: 'deliveries' },
  { parent: 'webhook_delivery_attempts', table: 'delivery_attempts' },
] as const;

export class WebhookDeliveryBoundedPartitionsMigration1798400000000 implements MigrationInterface {
  name = 'WebhookDeliveryBoundedPartitionsMigration1798400000000';
  transaction = false as const;

  async up(queryRunner: QueryRunner): Promise<void> {
    const cutover = await this.cutover(queryRunner);
    await queryRunner.query(`CREATE OR REPLACE FUNCTION delivery_attempts_file_under_delivery() RETURNS trigger
      LANGUAGE plpgsql AS $$
      BEGIN
        NEW.delivery_created_at := ${FILL_FROM_DELIVERY('NEW')};
        RETURN NEW;
      END $$`);
    await queryRunner.query(`DROP TRIGGER IF EXISTS delivery_attempts_file_under_delivery ON delivery_attempts`);
    await queryRunner.query(`CREATE TRIGGER delivery_attempts_file_under_delivery BEFORE INSERT ON delivery_attempts
      FOR EACH ROW WHEN (NEW.delivery_created_at IS NULL) EXECUTE FUNCTION delivery_attempts_file_under_delivery()`);
    await this.backfill(queryRunner);
    await queryRunner.query(`ALTER TABLE delivery_attempts DROP CONSTRAINT IF EXISTS delivery_attempts_bounded`);
    await queryRunner.query(`ALTER TABLE delivery_attempts ADD CONSTRAINT delivery_attempts_bounded
      CHECK (delivery_created_at IS NOT NULL AND delivery_created_at < '${cutover}') NOT VALID`);
    await queryRunner.query('ALTER TABLE delivery_attempts VALIDATE CONSTRAINT delivery_attempts_bounded');
    for (const part of PARTS) {
      await this.swap(
        queryRunner,
        part.table,
        `ALTER TABLE ${part.parent} DETACH PARTITION ${part.table}`,
        `ALTER TABLE ${part.parent} ATTACH PARTITION ${part.table} FOR VALUES FROM (MINVALUE) TO ('${cutover}')`,
        'DEFAULT',
      );
    }
  }

  /** The first week's start, which the weekly-partitions migration stated as the default partitions' CHECK. */
  private async cutover(queryRunner: QueryRunner): Promise<string> {
    const [row] = (await queryRunner.query(
      `SELECT substring(pg_get_constraintdef(oid) FROM '''([^'']+)''') AS cutover FROM pg_constraint
        WHERE conname = 'deliveries_before_partitions' AND conrelid = 'deliveries'::regclass`,
    )) as Array<{ cutover: string | null }>;
    if (!row?.cutover) throw new Error('deliveries_before_partitions not found: the weekly-partitions migration first');
    return row.cutover;
  }

  /** Attempts without `delivery_created_at`, filled a batch at a time along the primary key. */
  private async backfill(queryRunner: QueryRunner): Promise<void> {
    let after: string | null = null;
    for (;;) {
      const [row] = (await queryRunner.query(
        `WITH batch AS (
           SELECT id FROM ONLY delivery_attempts WHERE ($1::uuid IS NULL OR id > $1::uuid) ORDER BY id LIMIT ${BACKFILL_BATCH}
         ), filled AS (
           UPDATE delivery_attempts a SET delivery_created_at = ${FILL_FROM_DELIVERY('a')}
             FROM batch WHERE a.id = batch.id AND a.delivery_created_at IS NULL
         )
         SELECT (SELECT id FROM batch ORDER BY id DESC LIMIT 1)::text AS last, (SELECT count(*)::int FROM batch) AS walked`,
        [after],
      )) as Array<{ last: string | null; walked: number }>;
      if (!row || row.walked < BACKFILL_BATCH || row.last === null) return;
      after = row.last;
    }
  }

  /**
   * `detach` then `attach` of `table` in one short transaction, unless already done (its bound is no
   * longer `from`); a lock not had within LOCK_TIMEOUT rolls back and is tried again.
   */
  private async swap(queryRunner: QueryRunner, table: string, detach: string, attach: string, from: string) {
    for (let attempt = 1; ; attempt += 1) {
      const [row] = (await queryRunner.query(
        `SELECT pg_get_expr(relpartbound, oid) AS bound FROM pg_class WHERE oid = $1::regclass`,
        [table],
      )) as Array<{ bound: string | null }>;
      if (row?.bound !== from) return;
      await queryRunner.startTransaction();
      try {
        await queryRunner.query(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
        await queryRunner.query(detach);
        await queryRunner.query(attach);
        await queryRunner.commitTransaction();
        return;
      } catch (error) {
        await queryRunner.rollbackTransaction();
        if ((error as { code?: string }).code !== '55P03' || attempt >= SWAP_TRIES) throw error;
        await new Promise((resolve) => setTimeout(resolve, SWAP_RETRY_DELAY_MS));
      }
    }
  }

  /** Back to default partitions; the filled `delivery_created_at` stays (the release before ignores it). */
  async down(queryRunner: QueryRunner): Promise<void> {
    for (const part of [...PARTS].reverse()) {
      const [row] = (await queryRunner.query(
        `SELECT pg_get_expr(relpartbound, oid) AS bound FROM pg_class WHERE oid = $1::regclass`,
        [part.table],
      )) as Array<{ bound: string | null }>;
      await this.swap(
        queryRunner,
        part.table,
        `ALTER TABLE ${part.parent} DETACH PARTITION ${part.table}`,
        `ALTER TABLE ${part.parent} ATTACH PARTITION ${part.table} DEFAULT`,
        row!.bound!,
      );
    }
    await queryRunner.query('ALTER TABLE delivery_attempts DROP CONSTRAINT IF EXISTS delivery_attempts_bounded');
    await queryRunner.query('DROP TRIGGER IF EXISTS delivery_attempts_file_under_delivery ON delivery_attempts');
    await queryRunner.query('DROP FUNCTION IF EXISTS delivery_attempts_file_under_delivery()');
  }
}
