// Proves the weekly-partitions migration on a database that already holds deliveries, as a
// deploy meets it (the suite's other specs migrate empty databases): a scratch database is
// migrated up to the migration before, given deliveries (finished, open and not yet in the
// feed) with attempts and a partner retry, then migrated as the services migrate it. Every
// row stays where it was and reads through the partitioned tables; the first weekly partition
// starts at least a week ahead, so the release before keeps writing the old tables meanwhile;
// a redelivered event is still recognised; new deliveries, attempts and feed positions work.
// Reverting restores the unpartitioned tables with every row, the feed step on them included,
// and migrating again works.
import { randomUUID } from 'node:crypto';
import { createDataSource, DataSource, WEEK_MS, weeklyPartitions } from '@platform/persistence';
import { createScratchDatabase, ScratchDatabase } from '@platform/testing';
import { webhookDeliveryDataSource } from '../src/persistence/data-source';
import { WebhookDeliveryOrderedClaimMigration1799874000000 } from '../src/persistence/migrations/1799874000000-webhook-delivery-ordered-claim';
import { DeliveriesRepository, NewDelivery } from '../src/persistence/deliveries.repository';
import { EventFeedRepository } from '../src/persistence/event-feed.repository';
import { deliveredRecordings } from './webhook-test-support';

type Migrations = NonNullable<Parameters<typeof createDataSource>[0]['migrations']>;
const ALL = webhookDeliveryDataSource('postgres://unused/unused').options.migrations as Migrations;
const PARTITIONING = 'WebhookDeliveryWeeklyPartitionsMigration1797500000000';
const PARTITIONING_INDEX = ALL.findIndex((migration) =>
  (migration as { name?: string }).name?.startsWith(PARTITIONING),
);
/** Up to this migration: the ones after it have their own specs (bounded-partitions-migration). */
const UP_TO_PARTITIONING = ALL.slice(0, PARTITIONING_INDEX + 1);
const HOUR_MS = 60 * 60_000;

function connected(url: string, migrations: Migrations): Promise<DataSource> {
  return createDataSource({ url, applicationName: 'partitions-migration-spec', migrations, poolSize: 2 }).initialize();
}

/** As the services' start migrates (libs/persistence runMigrations): each migration in its own transaction, unless it opts out. */
const migrate = (db: DataSource) => db.runMigrations({ transaction: 'each' });

describe('weekly partitions migration on a database holding deliveries', () => {
  let scratch: ScratchDatabase;
  let db: DataSource;
  const before: Array<{ id: string; eventId: string; partnerId: string; createdAt: Date; status: string }> = [];

  beforeAll(async () => {
    expect(PARTITIONING_INDEX).toBeGreaterThan(0);
    scratch = await createScratchDatabase('webhook_delivery_partitioning');
    const earlier = await connected(scratch.url, ALL.slice(0, PARTITIONING_INDEX));
    await migrate(earlier);
    const partnerId = randomUUID();
    await earlier.query(
      `INSERT INTO endpoints (partner_id, url, secret_sealed) VALUES ($1, 'https://example.test/hook', 's')`,
      [partnerId],
    );
    for (const [status, ageMs, positioned] of [
      ['delivered', 10 * 24 * HOUR_MS, true],
      ['pending', HOUR_MS, true],
      ['delivered', 60_000, false],
    ] as const) {
      const row = {
        id: randomUUID(),
        eventId: randomUUID(),
        partnerId,
        createdAt: new Date(Date.now() - ageMs),
        status,
      };
      before.push(row);
      await earlier.query(
        `INSERT INTO deliveries (delivery_id, event_id, partner_id, event_type, body, endpoint_url, status, next_attempt_at,
                                 created_at, delivered_at, feed_position)
         VALUES ($1, $2, $3, 'order.settled', '{}', 'https://example.test/hook', $4, CASE WHEN $4 = 'pending' THEN now() END,
                 $5, CASE WHEN $4 = 'delivered' THEN $5::timestamptz END, $6)`,
        [row.id, row.eventId, partnerId, status, row.createdAt, positioned ? before.length : null],
      );
      await earlier.query(
        `INSERT INTO delivery_attempts (id, delivery_id, attempt_number, started_at, latency_ms, status_code)
         VALUES ($1, $2, 1, $3, 12, 500)`,
        [randomUUID(), row.id, row.createdAt],
      );
    }
    await earlier.query('INSERT INTO partner_retries (partner_id, delivery_id, requested_at) VALUES ($1, $2, now())', [
      partnerId,
      before[0]!.id,
    ]);
    await earlier.destroy();
    db = await connected(scratch.url, UP_TO_PARTITIONING);
    await migrate(db);
  }, 60_000);

  afterAll(async () => {
    await db?.destroy();
    await scratch?.drop();
  });

  const count = async (sql: string) => Number(((await db.query(sql)) as Array<{ n: string }>)[0]!.n);

  it('keeps every row, in the default partitions under the old names, readable through the parents', async () => {
    expect(await count('SELECT count(*) AS n FROM webhook_deliveries')).toBe(3);
    expect(await count('SELECT count(*) AS n FROM ONLY deliveries')).toBe(3);
    expect(await count('SELECT count(*) AS n FROM webhook_delivery_attempts')).toBe(3);
    expect(await count('SELECT count(*) AS n FROM ONLY delivery_attempts')).toBe(3);
    expect(await count('SELECT count(*) AS n FROM partner_retries')).toBe(1);
  });

  it('starts the weekly partitions at least a week ahead, so the release before keeps writing the old tables', async () => {
    const [first] = await weeklyPartitions(db, 'webhook_deliveries');
    expect(first).toBeGreaterThanOrEqual(Date.now() + WEEK_MS - 24 * HOUR_MS);
    expect(await weeklyPartitions(db, 'webhook_delivery_attempts')).toEqual(
      await weeklyPartitions(db, 'webhook_deliveries'),
    );
    // What the release before writes: straight into the old table, created now.
    await db.query(
      `INSERT INTO deliveries (delivery_id, event_id, partner_id, event_type, body, status, created_at)
       VALUES ($1, $2, $3, 'order.settled', '{}', 'no_endpoint', now())`,
      [randomUUID(), randomUUID(), before[0]!.partnerId],
    );
  });

  it('recognises a redelivered event recorded before, and records, claims and positions new ones', async () => {
    const repository = new DeliveriesRepository(db);
    const delivery = (eventId: string, createdAt: Date): NewDelivery => ({
      deliveryId: randomUUID(),
      eventId,
      partnerId: before[0]!.partnerId,
      eventType: 'order.settled',
      body: '{}',
      traceparent: null,
      createdAt,
    });
    const [old] = before;
    expect(await repository.insertMany([delivery(old!.eventId, old!.createdAt)])).toEqual(['duplicate']);
    expect(await repository.insertMany([delivery(randomUUID(), new Date())])).toEqual(['pending']);
    // The claim is a function a later migration creates (ordered claim): made here as it makes it, then dropped.
    const orderedClaim = new WebhookDeliveryOrderedClaimMigration1799874000000();
    const runner = db.createQueryRunner();
    const claimed = await orderedClaim
      .up(runner)
      .then(() =>
        repository
          .claimDue({ limit: 10, endpointInFlightMax: 10, leaseMs: 30_000 })
          .finally(() => orderedClaim.down(runner)),
      )
      .finally(() => runner.release());
    expect(claimed.map((c) => c.deliveryId)).toContain(before[1]!.id);
    await repository.recordAttempts(deliveredRecordings(claimed));
    expect(await count(`SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'delivered'`)).toBe(4);
    await new EventFeedRepository(db).assignPositions(100);
    const positions = (await db.query(
      'SELECT feed_position::int AS p FROM webhook_deliveries WHERE feed_position IS NOT NULL ORDER BY 1',
    )) as Array<{ p: number }>;
    expect(positions.map((row) => row.p)).toEqual([1, 2, 3, 4, 5]);
  });

  it('reverts to the unpartitioned tables with every row, and migrates again', async () => {
    await db.undoLastMigration({ transaction: 'each' });
    expect(await count(`SELECT count(*) AS n FROM pg_class WHERE relname = 'webhook_deliveries'`)).toBe(0);
    expect(await count('SELECT count(*) AS n FROM deliveries')).toBe(5);
    expect(await count('SELECT count(*) AS n FROM delivery_attempts')).toBe(5);
    expect(await count(`SELECT count(*) AS n FROM pg_indexes WHERE indexname = 'deliveries_feed_position_key'`)).toBe(
      1,
    );
    await db.query(
      `INSERT INTO deliveries (delivery_id, event_id, partner_id, event_type, body, status, created_at, delivered_at)
       VALUES ($1, $2, $3, 'order.settled', '{}', 'delivered', now(), now())`,
      [randomUUID(), randomUUID(), before[0]!.partnerId],
    );
    expect(await new EventFeedRepository(db).assignPositions(100)).toBe(1);

    await migrate(db);
    expect(await count('SELECT count(*) AS n FROM webhook_deliveries')).toBe(6);
  });
});
