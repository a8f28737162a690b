// Proves that an event whose week is missing is still accepted, against PostgreSQL: on a scratch
// database whose partition maintenance stopped two weeks ago (no week after that, no DEFAULT
// partition), the insert alone is refused (`no partition of relation … found for row`: before the
// accept path created weeks, every such event went back to the queue and was dead-lettered after 20
// tries); the accept path creates the week in deliveries and attempts, with the names, bounds and
// indexes the retention worker gives a week, and tries the batch once more. Replicas racing on the
// same missing week all get their events in, each once. An event dated absurdly far ahead or back
// only ever needs a week between the late-event floor and next week. Creating a week does not wait
// for inserts in flight, where CREATE TABLE … PARTITION OF does (ACCESS EXCLUSIVE on the parent,
// measured here from pg_locks beside the attach's SHARE UPDATE EXCLUSIVE).
import { randomUUID } from 'node:crypto';
import type { ConsumedEvent } from '@platform/events';
import { createLogger } from '@platform/logger';
import { Registry } from '@platform/metrics';
import {
  createDataSource,
  createWeek,
  DataSource,
  isNoPartitionForRow,
  partitionRuleOf,
  WEEK_MS,
  weekPartitionName,
  weeklyPartitions,
  weekStartMs,
} from '@platform/persistence';
import { createScratchDatabase, ScratchDatabase } from '@platform/testing';
import { DeliveryMetrics } from '../src/metrics/delivery-metrics';
import { webhookDeliveryDataSource } from '../src/persistence/data-source';
import { DeliveriesRepository, LATE_EVENT_FILED_WITHIN_DAYS } from '../src/persistence/deliveries.repository';
import { EndpointsRepository } from '../src/persistence/endpoints.repository';
import { AcceptEventUseCase } from '../src/usecases/accept-event/accept-event.usecase';
import { webhookDeliveryRetentionRules } from '../src/workers/retention.worker';
import { deliveredRecordings, newDelivery, partitionedSince } from './webhook-test-support';

type Migrations = NonNullable<Parameters<typeof createDataSource>[0]['migrations']>;
const ALL = webhookDeliveryDataSource('postgres://unused/unused').options.migrations as Migrations;
const DAY_MS = 24 * 60 * 60_000;
const TABLES = ['webhook_deliveries', 'webhook_delivery_attempts'] as const;

const thisWeek = weekStartMs(Date.now());
/** The last week the stopped maintenance created. */
const lastCreated = thisWeek - 2 * WEEK_MS;

describe('an event whose week is missing', () => {
  let scratch: ScratchDatabase;
  let db: DataSource;
  /** A second replica: its own pool on the same database. */
  let other: DataSource;
  const partnerId = randomUUID();
  const [, weekly] = webhookDeliveryRetentionRules({ deliveryRetentionDays: 60, partitionsAheadWeeks: 4 });
  const rule = partitionRuleOf(weekly!, weekly!.partitionedByWeek!);

  const connect = (name: string) =>
    createDataSource({ url: scratch.url, applicationName: name, migrations: ALL, poolSize: 4 }).initialize();
  const acceptOn = (dataSource: DataSource) =>
    new AcceptEventUseCase({
      endpoints: new EndpointsRepository(dataSource),
      deliveries: new DeliveriesRepository(dataSource),
      metrics: new DeliveryMetrics(new Registry()),
      logger: createLogger('missing-week-spec', 'error'),
    });
  const event = (createdAtMs: number): ConsumedEvent => ({
    id: randomUUID(),
    type: 'credit.received',
    createdAt: new Date(createdAtMs).toISOString(),
    partnerId,
    data: { transactionId: randomUUID() },
  });

  beforeAll(async () => {
    scratch = await createScratchDatabase('webhook_delivery_missing_week');
    db = await connect('missing-week-spec');
    await db.runMigrations({ transaction: 'each' });
    other = await connect('missing-week-spec-replica');
    // Partitioned twelve weeks ago; the maintenance created weeks up to two weeks ago, then stopped.
    await partitionedSince(db, thisWeek - 12 * WEEK_MS);
    for (let start = thisWeek - 12 * WEEK_MS; start <= lastCreated; start += WEEK_MS) await createWeek(db, rule, start);
    // The weeks the migration created from this one on, as if never made.
    for (const start of await weeklyPartitions(db, 'webhook_deliveries'))
      if (start > lastCreated)
        await db.query(`DROP TABLE ${TABLES.map((table) => weekPartitionName(table, start)).join(', ')}`);
    await db.query(
      `INSERT INTO endpoints (partner_id, url, secret_sealed) VALUES ($1, 'https://example.test/hook', 's')`,
      [partnerId],
    );
  });

  afterAll(async () => {
    await other?.destroy();
    await db?.destroy();
    await scratch?.drop();
  });

  const deliveriesOf = async (eventIds: string[]) =>
    (
      (await db.query('SELECT event_id, created_at FROM webhook_deliveries WHERE event_id = ANY($1)', [
        eventIds,
      ])) as Array<{ event_id: string; created_at: Date }>
    ).map((row) => ({ eventId: row.event_id, filedAtMs: row.created_at.getTime() }));

  /**
   * A week's partition as the catalog has it: its bound and its indexes without names (PostgreSQL
   * names a partition's index after its table, cut to 63 characters and numbered on a clash).
   */
  async function shapeOf(table: string, start: number) {
    const partition = weekPartitionName(table, start);
    const [bound] = (await db.query(
      `SELECT pg_get_expr(relpartbound, oid) AS bound FROM pg_class WHERE oid = $1::regclass`,
      [partition],
    )) as Array<{ bound: string }>;
    const indexes = (await db.query('SELECT indexdef FROM pg_indexes WHERE tablename = $1', [partition])) as Array<{
      indexdef: string;
    }>;
    const generic = (text: string) => text.replaceAll(partition, '<week>').replace(/INDEX \w+ ON/, 'INDEX ON');
    return { bound: bound?.bound, indexes: indexes.map((row) => generic(row.indexdef)).sort() };
  }

  it('is refused by PostgreSQL when inserted alone: no partition takes the row', async () => {
    const refused = await new DeliveriesRepository(db).insertMany([newDelivery(partnerId, new Date())]).then(
      () => null,
      (error: unknown) => error,
    );
    expect(isNoPartitionForRow(refused)).toBe(true);
    expect(await weeklyPartitions(db, 'webhook_deliveries')).not.toContain(thisWeek);
  });

  it('is accepted: its week created in deliveries and attempts as the worker creates one, then delivered once', async () => {
    const events = [event(Date.now() - 60_000), event(Date.now())];
    expect(await acceptOn(db).execute(events)).toEqual(['created', 'created']);

    for (const table of TABLES) {
      expect(await weeklyPartitions(db, table)).toContain(thisWeek);
      const [expected] = (await db.query(
        `SELECT format('FOR VALUES FROM (%L) TO (%L)', $1::timestamptz, $2::timestamptz) AS bound`,
        [new Date(thisWeek), new Date(thisWeek + WEEK_MS)],
      )) as Array<{ bound: string }>;
      expect(await shapeOf(table, thisWeek)).toEqual({
        ...(await shapeOf(table, lastCreated)),
        bound: expected!.bound,
      });
    }
    expect((await deliveriesOf(events.map((e) => e.id))).map((row) => row.filedAtMs).sort()).toEqual(
      events.map((e) => Date.parse(e.createdAt)).sort(),
    );
    // Its attempts find their week too.
    const deliveries = new DeliveriesRepository(db);
    const claimed = await deliveries.claimDue({ limit: 10, endpointInFlightMax: 10, leaseMs: 30_000 });
    expect(claimed.map((c) => c.eventId).sort()).toEqual(events.map((e) => e.id).sort());
    await deliveries.recordAttempts(deliveredRecordings(claimed));
    const [attempts] = (await db.query(
      `SELECT count(*)::int AS count FROM ${weekPartitionName('webhook_delivery_attempts', thisWeek)}`,
    )) as Array<{ count: number }>;
    expect(attempts!.count).toBe(2);
  });

  it('is accepted once by replicas racing on the same missing week, none of their events lost or doubled', async () => {
    const week = thisWeek - WEEK_MS; // missing: after the last week created
    const shared = event(week + DAY_MS);
    const batches = [0, 1, 2, 3].map((replica) => [
      shared,
      ...Array.from({ length: 5 }, (_, index) => event(week + DAY_MS + (replica * 5 + index + 1) * 60_000)),
    ]);
    const results = await Promise.all(batches.map((batch, index) => acceptOn(index % 2 ? other : db).execute(batch)));

    expect(results.flat().filter((result) => result instanceof Error)).toEqual([]);
    // The event all four batches carry is created by one of them, a duplicate for the others.
    expect(results.map((result) => result[0]).sort()).toEqual(['created', 'duplicate', 'duplicate', 'duplicate']);
    const ids = [...new Set(batches.flat().map((e) => e.id))];
    const rows = await deliveriesOf(ids);
    expect(rows.map((row) => row.eventId).sort()).toEqual(ids.sort());
    for (const table of TABLES)
      expect((await weeklyPartitions(db, table)).filter((start) => start === week)).toEqual([week]);
  });

  it('needs no week outside the late-event floor and next week, however absurd its date', async () => {
    const nextWeek = thisWeek + WEEK_MS;
    const ahead = event(Date.UTC(2300, 0, 1));
    const behind = event(Date.UTC(1971, 0, 1));
    expect(await acceptOn(db).execute([ahead, behind])).toEqual(['created', 'created']);

    const floorWeek = weekStartMs(Date.now() - LATE_EVENT_FILED_WITHIN_DAYS * DAY_MS);
    const filed = new Map((await deliveriesOf([ahead.id, behind.id])).map((row) => [row.eventId, row.filedAtMs]));
    expect(filed.get(ahead.id)).toBe(nextWeek);
    expect(filed.get(behind.id)).toBe(floorWeek);
    // Next week was missing and is made; nothing beyond it, nothing before the weeks there were.
    for (const table of TABLES) {
      const weeks = await weeklyPartitions(db, table);
      expect(weeks.at(-1)).toBe(nextWeek);
      expect(weeks[0]).toBe(thisWeek - 12 * WEEK_MS);
    }
  });

  describe('the locks a week takes on its parent', () => {
    const FAR_WEEK = Date.UTC(2100, 0, 4); // a Monday no test files in

    /** The locks this session holds on the parent of deliveries after `statements`, rolled back after. */
    async function parentLocksAfter(statements: string[]): Promise<string[]> {
      const runner = db.createQueryRunner();
      try {
        await runner.startTransaction();
        for (const sql of statements) await runner.query(sql);
        const rows = (await runner.query(
          `SELECT mode FROM pg_locks WHERE pid = pg_backend_pid() AND relation = 'webhook_deliveries'::regclass ORDER BY mode`,
        )) as Array<{ mode: string }>;
        return rows.map((row) => row.mode);
      } finally {
        await runner.rollbackTransaction();
        await runner.release();
      }
    }

    const week = weekPartitionName('webhook_deliveries', FAR_WEEK);
    const bound = `FOR VALUES FROM ('${new Date(FAR_WEEK).toISOString()}') TO ('${new Date(FAR_WEEK + WEEK_MS).toISOString()}')`;

    it('is SHARE UPDATE EXCLUSIVE when a plain table is attached, ACCESS EXCLUSIVE for CREATE TABLE … PARTITION OF', async () => {
      const attach = await parentLocksAfter([
        `CREATE TABLE ${week} (LIKE webhook_deliveries INCLUDING ALL EXCLUDING INDEXES)`,
        `ALTER TABLE webhook_deliveries ATTACH PARTITION ${week} ${bound}`,
      ]);
      expect(attach).toContain('ShareUpdateExclusiveLock');
      expect(attach).not.toContain('AccessExclusiveLock');
      expect(await parentLocksAfter([`CREATE TABLE ${week} PARTITION OF webhook_deliveries ${bound}`])).toContain(
        'AccessExclusiveLock',
      );
    });

    it('lets an insert in flight go on: the week is made and the event accepted, where PARTITION OF waits', async () => {
      // A week inside the window gone missing (a gap behind the newest: the maintenance only creates ahead).
      const missing = thisWeek - 3 * WEEK_MS;
      await db.query(`DROP TABLE ${TABLES.map((table) => weekPartitionName(table, missing)).join(', ')}`);
      const writer = db.createQueryRunner();
      const blocked = db.createQueryRunner();
      await writer.startTransaction();
      try {
        // An insert in flight: ROW EXCLUSIVE on the parent until it commits.
        await writer.query(
          `INSERT INTO webhook_deliveries (delivery_id, event_id, partner_id, event_type, body, status, created_at)
           VALUES ($1, $2, $3, 'credit.received', '{}', 'no_endpoint', now())`,
          [randomUUID(), randomUUID(), randomUUID()],
        );
        await blocked.query(`SET lock_timeout = '500ms'`);
        await expect(blocked.query(`CREATE TABLE ${week} PARTITION OF webhook_deliveries ${bound}`)).rejects.toThrow(
          /lock timeout/,
        );
        const late = event(missing + DAY_MS);
        expect(await acceptOn(db).execute([late])).toEqual(['created']);
        expect((await deliveriesOf([late.id])).map((row) => row.filedAtMs)).toEqual([missing + DAY_MS]);
      } finally {
        await writer.commitTransaction();
        await writer.release();
        await blocked.query('RESET lock_timeout');
        await blocked.release();
      }
      for (const table of TABLES) expect(await weeklyPartitions(db, table)).toContain(missing);
    });
  });
});
