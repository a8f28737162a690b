// Proves the migration that leaves deliveries and attempts without a DEFAULT partition, on a
// database partitioned by week whose default partitions (the tables from before) hold rows, as a
// deploy meets it: attempts recorded before the partitioning have no `delivery_created_at`. After it, the tables from before are the range below the first week, every
// row reads through the parents where it did, each attempt is filed under its delivery's
// creation time, the release before the partitioning can still write attempts into its table
// during the rollout, and a redelivered old event is still recognised. Reverting makes them
// DEFAULT partitions again with every row; migrating again works.
import { randomUUID } from 'node:crypto';
import { createDataSource, DataSource } from '@platform/persistence';
import { createScratchDatabase, ScratchDatabase } from '@platform/testing';
import { webhookDeliveryDataSource } from '../src/persistence/data-source';
import { DeliveriesRepository } from '../src/persistence/deliveries.repository';

type Migrations = NonNullable<Parameters<typeof createDataSource>[0]['migrations']>;
const ALL = webhookDeliveryDataSource('postgres://unused/unused').options.migrations as Migrations;
const BOUNDED = 'WebhookDeliveryBoundedPartitionsMigration1798400000000';
/** Where the bounded partitions come in the service's list: the migrations after it are undone before it. */
const BOUNDED_INDEX = ALL.findIndex((migration) => (migration as { name?: string }).name?.startsWith(BOUNDED));
const HOUR_MS = 60 * 60_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * Monday 00:00 UTC of this week: on an empty table the weekly-partitions migration puts its cutover
 * there, so rows the release before it wrote must be older (rows 5 days old, say, are not on a Saturday).
 */
function startOfThisUtcWeekMs(): number {
  const now = new Date();
  const daysSinceMonday = (now.getUTCDay() + 6) % 7;
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - daysSinceMonday * DAY_MS;
}

function connected(url: string, migrations: Migrations): Promise<DataSource> {
  return createDataSource({ url, applicationName: 'bounded-partitions-spec', migrations, poolSize: 2 }).initialize();
}

const migrate = (db: DataSource) => db.runMigrations({ transaction: 'each' });

describe('bounded partitions migration on a database whose default partitions hold rows', () => {
  let scratch: ScratchDatabase;
  let db: DataSource;
  const partnerId = randomUUID();
  const legacy = Array.from({ length: 3 }, (_, index) => ({
    deliveryId: randomUUID(),
    eventId: randomUUID(),
    createdAt: new Date(startOfThisUtcWeekMs() - HOUR_MS - index * 5 * DAY_MS),
    attemptId: randomUUID(),
  }));

  beforeAll(async () => {
    expect(BOUNDED_INDEX).toBeGreaterThan(0);
    scratch = await createScratchDatabase('webhook_delivery_bounded');
    const earlier = await connected(scratch.url, ALL.slice(0, BOUNDED_INDEX));
    await migrate(earlier);
    // Written as the release before the partitioning wrote them: straight into the old tables.
    for (const row of legacy) {
      await earlier.query(
        `INSERT INTO deliveries (delivery_id, event_id, partner_id, event_type, body, endpoint_url, status, created_at,
                                 delivered_at, feed_position)
         VALUES ($1, $2, $3, 'order.settled', '{}', 'https://example.test/hook', 'delivered', $4, $4, NULL)`,
        [row.deliveryId, row.eventId, partnerId, row.createdAt],
      );
      await earlier.query(
        `INSERT INTO delivery_attempts (id, delivery_id, attempt_number, started_at, latency_ms, status_code)
         VALUES ($1, $2, 1, $3, 12, 200)`,
        [row.attemptId, row.deliveryId, row.createdAt],
      );
    }
    await earlier.destroy();
    db = await connected(scratch.url, ALL);
    await migrate(db);
  }, 60_000);

  afterAll(async () => {
    await db?.destroy();
    await scratch?.drop();
  });

  const bounds = async () =>
    (
      (await db.query(
        `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound FROM pg_inherits i
           JOIN pg_class c ON c.oid = i.inhrelid
          WHERE i.inhparent IN ('webhook_deliveries'::regclass, 'webhook_delivery_attempts'::regclass)
            AND c.relname IN ('deliveries', 'delivery_attempts') ORDER BY 1`,
      )) as Array<{ name: string; bound: string }>
    ).map((row) => `${row.name} ${row.bound}`);
  const cutover = async () =>
    (
      (await db.query(
        `SELECT substring(pg_get_constraintdef(oid) FROM '''([^'']+)''') AS cutover FROM pg_constraint
          WHERE conname = 'deliveries_before_partitions'`,
      )) as Array<{ cutover: string }>
    )[0]!.cutover;
  const count = async (sql: string) => Number(((await db.query(sql)) as Array<{ n: string }>)[0]!.n);

  it('makes the tables from before the range below the first week: no DEFAULT partition is left', async () => {
    const first = await cutover();
    expect(await bounds()).toEqual([
      `deliveries FOR VALUES FROM (MINVALUE) TO ('${first}')`,
      `delivery_attempts FOR VALUES FROM (MINVALUE) TO ('${first}')`,
    ]);
    expect(
      await count(`SELECT count(*) AS n FROM pg_class WHERE relpartbound IS NOT NULL
                    AND pg_get_expr(relpartbound, oid) = 'DEFAULT'`),
    ).toBe(0);
  });

  it('keeps every row where it was, each attempt filed under its delivery', async () => {
    expect(await count('SELECT count(*) AS n FROM webhook_deliveries')).toBe(3);
    expect(await count('SELECT count(*) AS n FROM webhook_delivery_attempts')).toBe(3);
    const filed = (await db.query(
      'SELECT id, delivery_created_at FROM webhook_delivery_attempts ORDER BY started_at',
    )) as Array<{ id: string; delivery_created_at: Date }>;
    const expected = new Map(legacy.map((row) => [row.attemptId, row.createdAt.getTime()]));
    expect(filed).toHaveLength(3);
    for (const row of filed) expect(row.delivery_created_at.getTime()).toBe(expected.get(row.id));
  });

  it('fills the filing time of attempts the release before the partitioning still writes into its table', async () => {
    const attemptId = randomUUID();
    await db.query(
      `INSERT INTO delivery_attempts (id, delivery_id, attempt_number, started_at, latency_ms, status_code)
       VALUES ($1, $2, 2, now(), 12, 200)`,
      [attemptId, legacy[0]!.deliveryId],
    );
    const [row] = (await db.query('SELECT delivery_created_at FROM webhook_delivery_attempts WHERE id = $1', [
      attemptId,
    ])) as Array<{ delivery_created_at: Date }>;
    expect(row!.delivery_created_at.getTime()).toBe(legacy[0]!.createdAt.getTime());
  });

  it('recognises a redelivered event recorded before, and records new ones', async () => {
    const repository = new DeliveriesRepository(db);
    const again = legacy[1]!;
    const fresh: string = randomUUID();
    const outcomes = await repository.insertMany(
      [
        { eventId: again.eventId, createdAt: again.createdAt },
        { eventId: fresh, createdAt: new Date() },
      ].map((event) => ({
        deliveryId: randomUUID(),
        partnerId,
        eventType: 'order.settled',
        body: '{}',
        traceparent: null,
        ...event,
      })),
    );
    expect(outcomes).toEqual(['duplicate', 'no_endpoint']);
  });

  it('reverts to DEFAULT partitions with every row, and migrates again', async () => {
    const first = await cutover();
    for (let undone = ALL.length; undone > BOUNDED_INDEX; undone -= 1)
      await db.undoLastMigration({ transaction: 'each' });
    expect(await bounds()).toEqual(['deliveries DEFAULT', 'delivery_attempts DEFAULT']);
    expect(await count('SELECT count(*) AS n FROM webhook_delivery_attempts')).toBe(4);
    await migrate(db);
    expect(await bounds()).toEqual([
      `deliveries FOR VALUES FROM (MINVALUE) TO ('${first}')`,
      `delivery_attempts FOR VALUES FROM (MINVALUE) TO ('${first}')`,
    ]);
    expect(await count('SELECT count(*) AS n FROM webhook_deliveries')).toBe(4);
  });
});
