// Proves that an event arriving after its week was dropped (replayed, or held back long upstream)
// is delivered like any other: on a scratch database partitioned twelve weeks ago whose weeks past
// the delivery window are gone, as in production after retention ran, such an event is filed in a
// week retention keeps, claimed and delivered, and its redelivery is recognised, even once the week
// a late event is filed in has moved on. Filed at its own creation time, it would fall in no week
// and the insert would fail (its message dead-lettered): there is no DEFAULT partition. An event
// dated far ahead (a producer's clock) is filed at next week's start, which is always created.
import { randomUUID } from 'node:crypto';
import {
  createDataSource,
  createWeek,
  DataSource,
  partitionRuleOf,
  WEEK_MS,
  weeklyPartitions,
  weekStartMs,
} from '@platform/persistence';
import { createScratchDatabase, ScratchDatabase } from '@platform/testing';
import { webhookDeliveryDataSource } from '../src/persistence/data-source';
import {
  DeliveriesRepository,
  LATE_EVENT_FILED_WITHIN_DAYS,
  NewDelivery,
} from '../src/persistence/deliveries.repository';
import { webhookDeliveryRetentionRules } from '../src/workers/retention.worker';
import { deliveredRecordings, partitionedSince } from './webhook-test-support';

type Migrations = NonNullable<Parameters<typeof createDataSource>[0]['migrations']>;
const ALL = webhookDeliveryDataSource('postgres://unused/unused').options.migrations as Migrations;
const DAY_MS = 24 * 60 * 60_000;
const WINDOW_DAYS = 60;

describe('a late event, after its week was dropped', () => {
  let scratch: ScratchDatabase;
  let db: DataSource;
  let deliveries: DeliveriesRepository;
  const partnerId = randomUUID();
  const [, weekly] = webhookDeliveryRetentionRules({ deliveryRetentionDays: WINDOW_DAYS, partitionsAheadWeeks: 4 });
  const rule = partitionRuleOf(weekly!, weekly!.partitionedByWeek!);

  const delivery = (eventId: string, createdAt: Date): NewDelivery => ({
    deliveryId: randomUUID(),
    eventId,
    partnerId,
    eventType: 'order.settled',
    body: JSON.stringify({ id: eventId, createdAt: createdAt.toISOString() }),
    traceparent: null,
    createdAt,
  });

  beforeAll(async () => {
    scratch = await createScratchDatabase('webhook_delivery_late_events');
    db = await createDataSource({
      url: scratch.url,
      applicationName: 'late-events-spec',
      migrations: ALL,
      poolSize: 2,
    }).initialize();
    await db.runMigrations({ transaction: 'each' });
    // Partitioned twelve weeks ago: the tables from before hold the range below that (no DEFAULT
    // partition: nothing outside the ranges there is takes a row); the weeks since whose end is past
    // the window were dropped, the later ones are there.
    const thisWeek = weekStartMs(Date.now());
    await partitionedSince(db, thisWeek - 12 * WEEK_MS);
    for (let start = weekStartMs(Date.now() - WINDOW_DAYS * DAY_MS); start < thisWeek; start += WEEK_MS)
      await createWeek(db, rule, start);
    await db.query(
      `INSERT INTO endpoints (partner_id, url, secret_sealed) VALUES ($1, 'https://example.test/hook', 's')`,
      [partnerId],
    );
    deliveries = new DeliveriesRepository(db);
  });

  afterAll(async () => {
    await db?.destroy();
    await scratch?.drop();
  });

  const filedAt = async (eventId: string) =>
    (
      (await db.query('SELECT created_at FROM webhook_deliveries WHERE event_id = $1', [eventId])) as Array<{
        created_at: Date;
      }>
    ).map((row) => row.created_at.getTime());

  it('is filed in a week retention keeps, claimed and delivered', async () => {
    const eventId = randomUUID();
    const createdAt = new Date(Date.now() - 70 * DAY_MS);
    expect((await weeklyPartitions(db, 'webhook_deliveries'))[0]).toBeGreaterThan(createdAt.getTime());

    expect(await deliveries.insertMany([delivery(eventId, createdAt)])).toEqual(['pending']);

    const [filed] = await filedAt(eventId);
    expect(filed).toBe(weekStartMs(Date.now() - LATE_EVENT_FILED_WITHIN_DAYS * DAY_MS));
    expect(filed! + WEEK_MS).toBeGreaterThan(Date.now() - WINDOW_DAYS * DAY_MS); // not a week the next pass drops
    const claimed = await deliveries.claimDue({ limit: 10, endpointInFlightMax: 10, leaseMs: 30_000 });
    expect(claimed.map((c) => c.eventId)).toEqual([eventId]);
    await deliveries.recordAttempts(deliveredRecordings(claimed));
    const [row] = (await db.query(
      `SELECT d.status, (SELECT count(*)::int FROM webhook_delivery_attempts a WHERE a.delivery_id = d.delivery_id) AS attempts
         FROM webhook_deliveries d WHERE d.event_id = $1`,
      [eventId],
    )) as Array<{ status: string; attempts: number }>;
    expect(row).toEqual({ status: 'delivered', attempts: 1 });
  });

  it('is recognised when redelivered, also after the week late events are filed in has moved on', async () => {
    const eventId = randomUUID();
    const createdAt = new Date(Date.now() - 80 * DAY_MS);
    expect(await deliveries.insertMany([delivery(eventId, createdAt)])).toEqual(['pending']);
    expect(await deliveries.insertMany([delivery(eventId, createdAt)])).toEqual(['duplicate']);
    // As if filed a week earlier: a redelivery now files under a later key than the row has.
    await db.query(`UPDATE webhook_deliveries SET created_at = created_at - interval '7 days' WHERE event_id = $1`, [
      eventId,
    ]);
    expect(await deliveries.insertMany([delivery(eventId, createdAt)])).toEqual(['duplicate']);
    expect(await filedAt(eventId)).toHaveLength(1);
  });

  it('has no DEFAULT partition to fall back on: a week not created refuses a row', async () => {
    const [row] = (await db.query(
      `SELECT count(*)::int AS defaults FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent IN ('webhook_deliveries'::regclass, 'webhook_delivery_attempts'::regclass)
          AND pg_get_expr(c.relpartbound, c.oid) = 'DEFAULT'`,
    )) as Array<{ defaults: number }>;
    expect(row!.defaults).toBe(0);
    await expect(
      db.query(
        `INSERT INTO webhook_deliveries (delivery_id, event_id, partner_id, event_type, body, status, created_at)
         VALUES ($1, $2, $3, 'order.settled', '{}', 'no_endpoint', now() - interval '70 days')`,
        [randomUUID(), randomUUID(), partnerId],
      ),
    ).rejects.toThrow(/no partition/);
  });

  it('files an event dated two weeks ahead or more at the start of next week, and recognises its redelivery', async () => {
    const nextWeek = weekStartMs(Date.now()) + WEEK_MS;
    const early = randomUUID();
    const createdAt = new Date(Date.now() + 400 * DAY_MS); // far past the weeks created ahead
    expect(await deliveries.insertMany([delivery(early, createdAt)])).toEqual(['pending']);
    expect(await deliveries.insertMany([delivery(early, createdAt)])).toEqual(['duplicate']);
    expect(await filedAt(early)).toEqual([nextWeek]);
    // Just before the week after next: its own week (next week) is there, filed as it is.
    const edge = randomUUID();
    const edgeAt = new Date(nextWeek + WEEK_MS - 1);
    expect(await deliveries.insertMany([delivery(edge, edgeAt)])).toEqual(['pending']);
    expect(await filedAt(edge)).toEqual([edgeAt.getTime()]);
  });

  it('files an event within the window at its own creation time', async () => {
    const eventId = randomUUID();
    const createdAt = new Date(Date.now() - 3 * DAY_MS);
    expect(await deliveries.insertMany([delivery(eventId, createdAt)])).toEqual(['pending']);
    expect(await filedAt(eventId)).toEqual([createdAt.getTime()]);
  });
});
