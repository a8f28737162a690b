// Proves the weekly partitions of deliveries and attempts against PostgreSQL, on a scratch
// database migrated by this service's migrations and swept with its own rules, as its
// retention worker sweeps them: weeks are created ahead of the current one; a week wholly
// past DELIVERY_RETENTION_DAYS whose deliveries are all finished is dropped from both tables;
// a week past it holding an unfinished delivery is kept (its finished rows go by batch) until
// that delivery finishes, then dropped; weeks inside the window and this week are not touched;
// and a sweep run again changes nothing. Earlier weeks are created here as the worker would
// have created them then (a scratch database starts at this week: its tables from before, the
// range below the first week, are made to end twenty weeks ago).
import { randomUUID } from 'node:crypto';
import {
  createWeek,
  DataSource,
  detachedWeeks,
  dropWeek,
  partitionRuleOf,
  RetentionRule,
  WEEK_MS,
  weeklyPartitions,
  weekPartitionName,
  weekStartMs,
} from '@platform/persistence';
import { RetentionStand, retentionStand } from '@platform/testing';
import { webhookDeliveryDataSource } from '../src/persistence/data-source';
import { DeliveriesRepository } from '../src/persistence/deliveries.repository';
import { webhookDeliveryRetentionRules } from '../src/workers/retention.worker';
import { newDelivery, partitionedSince, plantDelivery } from './webhook-test-support';

const DAY_MS = 24 * 60 * 60_000;
const RETENTION_DAYS = 37;
/** More than the five weeks the migration creates, so that a sweep must create the rest. */
const AHEAD_WEEKS = 7;
const rules = webhookDeliveryRetentionRules({
  deliveryRetentionDays: RETENTION_DAYS,
  partitionsAheadWeeks: AHEAD_WEEKS,
});
const partitioned = rules.find((rule) => rule.partitionedByWeek) as RetentionRule & {
  partitionedByWeek: NonNullable<RetentionRule['partitionedByWeek']>;
};

const thisWeek = weekStartMs(Date.now());
/** Wholly past the window whatever the weekday (it ended at least 49 days ago). */
const pastWeek = thisWeek - 9 * WEEK_MS;
/** Also wholly past it: the week that holds an unfinished delivery. */
const heldWeek = thisWeek - 8 * WEEK_MS;
/** Inside the window whatever the weekday (it ends at most 28 days ago). */
const recentWeek = thisWeek - 4 * WEEK_MS;

type Status = 'pending' | 'delivered' | 'dead';

describe('weekly partitions of deliveries (webhook-delivery)', () => {
  let stand: RetentionStand;
  let position = 0;

  beforeAll(async () => {
    stand = await retentionStand('webhook_delivery_partitions', webhookDeliveryDataSource);
    await partitionedSince(stand.db, thisWeek - 20 * WEEK_MS);
    const rule = partitionRuleOf(partitioned, partitioned.partitionedByWeek);
    for (const start of [pastWeek, heldWeek, recentWeek]) await createWeek(stand.db, rule, start);
  });
  afterAll(() => stand?.drop());

  /** A delivery of `status` created at `createdAtMs`, with one attempt filed under its week. */
  const plant = (status: Status, createdAtMs: number) =>
    plantDelivery(stand.db, { status, createdAtMs, feedPosition: (position += 1) });

  const weeksOf = (table: string) => weeklyPartitions(stand.db, table);

  async function remaining(table: string, ids: string[]): Promise<string[]> {
    const rows = (await stand.db.query(`SELECT DISTINCT delivery_id FROM ${table} WHERE delivery_id = ANY($1)`, [
      ids,
    ])) as Array<{ delivery_id: string }>;
    return rows.map((row) => row.delivery_id).sort();
  }

  /** Every planted delivery still there, in both tables (the same ids: attempts go with their delivery). */
  async function remainingEverywhere(ids: string[]): Promise<string[]> {
    const deliveries = await remaining('webhook_deliveries', ids);
    expect(await remaining('webhook_delivery_attempts', ids)).toEqual(deliveries);
    return deliveries;
  }

  it('creates weeks ahead, drops a finished week past the window, keeps a held one until it finishes', async () => {
    const past = [await plant('delivered', pastWeek + DAY_MS), await plant('dead', pastWeek + 2 * DAY_MS)];
    const heldFinished = [await plant('delivered', heldWeek + DAY_MS), await plant('dead', heldWeek + 3 * DAY_MS)];
    const unfinished = await plant('pending', heldWeek + 2 * DAY_MS);
    const recent = [await plant('delivered', recentWeek + DAY_MS), await plant('dead', recentWeek + 2 * DAY_MS)];
    const current = [await plant('delivered', Date.now() - 60_000), await plant('pending', Date.now() - 30_000)];
    const kept = [...recent, ...current];

    await stand.sweep(rules, 10);

    const ahead = Array.from({ length: AHEAD_WEEKS + 1 }, (_, index) => thisWeek + index * WEEK_MS);
    for (const table of ['webhook_deliveries', 'webhook_delivery_attempts'])
      expect(await weeksOf(table)).toEqual([heldWeek, recentWeek, ...ahead]);
    // The held week stays, with its unfinished delivery; its finished rows went by batch.
    expect(await remainingEverywhere([...past, ...heldFinished, unfinished, ...kept])).toEqual(
      [unfinished, ...kept].sort(),
    );

    await stand.db.query(
      `UPDATE webhook_deliveries SET status = 'delivered', delivered_at = now(), next_attempt_at = NULL WHERE delivery_id = $1`,
      [unfinished],
    );
    await stand.sweep(rules, 10);

    for (const table of ['webhook_deliveries', 'webhook_delivery_attempts'])
      expect(await weeksOf(table)).toEqual([recentWeek, ...ahead]);
    expect(await remainingEverywhere([unfinished, ...kept])).toEqual([...kept].sort());

    // Run again: nothing more to create or drop, nothing else deleted.
    await stand.sweep(rules, 10);
    for (const table of ['webhook_deliveries', 'webhook_delivery_attempts'])
      expect(await weeksOf(table)).toEqual([recentWeek, ...ahead]);
    expect(await remainingEverywhere(kept)).toEqual([...kept].sort());
  });

  it('keeps a week past the window while one delivery in it has no feed position yet', async () => {
    const start = thisWeek - 10 * WEEK_MS;
    await createWeek(stand.db, partitionRuleOf(partitioned, partitioned.partitionedByWeek), start);
    const unpositioned = await plant('delivered', start + DAY_MS);
    await stand.db.query('UPDATE webhook_deliveries SET feed_position = NULL WHERE delivery_id = $1', [unpositioned]);

    await stand.sweep(rules, 10);

    expect((await weeksOf('webhook_deliveries'))[0]).toBe(start);
    expect(await remainingEverywhere([unpositioned])).toEqual([unpositioned]);
  });
  describe('a week detached concurrently (no DEFAULT partition)', () => {
    const rule = () => partitionRuleOf(partitioned, partitioned.partitionedByWeek);
    const partnerId = randomUUID();

    /** A connection of its own, with `setting` for every statement it runs. */
    async function session(setting: string) {
      const runner = stand.db.createQueryRunner();
      await runner.query(setting);
      return runner;
    }

    it('drops a week past the window while deliveries keep being inserted and claimed, none waiting past 500 ms for a lock', async () => {
      const start = thisWeek - 11 * WEEK_MS;
      await createWeek(stand.db, rule(), start);
      const finished = await plant('delivered', start + DAY_MS);
      await stand.db.query(
        `INSERT INTO endpoints (partner_id, url, secret_sealed) VALUES ($1, 'https://example.test/hook', 's')
         ON CONFLICT DO NOTHING`,
        [partnerId],
      );
      // A reader whose transaction still uses every week (as a long read would): the detach waits for it.
      const reader = await session('SET lock_timeout = 0');
      await reader.startTransaction();
      await reader.query('SELECT count(*) FROM webhook_deliveries');
      // The writer: the service's own insert and claim, failing rather than waiting 500 ms for a lock.
      const writer = await session(`SET lock_timeout = '500ms'`);
      // Its hot statements are named prepared statements sent to the pool: here, to the writer's session.
      const onWriter = async ({ text, values }: { text: string; values?: unknown[] }) => ({
        rows: (await writer.query(text, values)) as unknown[],
      });
      const repository = new DeliveriesRepository({
        query: (sql: string, parameters?: unknown[]) => writer.query(sql, parameters),
        driver: { master: { query: onWriter } },
      } as unknown as DataSource);
      let settled = false;
      const drop = dropWeek(stand.db, rule(), start).finally(() => {
        settled = true;
      });
      const releaseReader = new Promise((resolve) => setTimeout(resolve, 1_000)).then(() => reader.commitTransaction());
      let inserted = 0;
      let claimed = 0;
      try {
        while (!settled) {
          const outcome = await repository.insertMany([newDelivery(partnerId, new Date())]);
          expect(outcome).toEqual(['pending']);
          inserted += 1;
          claimed += (await repository.claimDue({ limit: 10, endpointInFlightMax: 1_000, leaseMs: 30_000 })).length;
        }
        expect(await drop).toBe(true);
      } finally {
        await releaseReader;
        await reader.release();
        await writer.query('RESET lock_timeout');
        await writer.release();
      }
      // The detach waited for the reader (a second), the writer went on meanwhile.
      expect(inserted).toBeGreaterThan(1);
      expect(claimed).toBe(inserted);
      expect(await weeksOf('webhook_deliveries')).not.toContain(start);
      expect(await weeksOf('webhook_delivery_attempts')).not.toContain(start);
      expect(await remainingEverywhere([finished])).toEqual([]);
      expect(await detachedWeeks(stand.db, 'webhook_deliveries')).toEqual([]);
    }, 30_000);

    it('finishes a drop a stopped pass left part-way: a detach left pending, a week detached but not dropped', async () => {
      const pending = thisWeek - 12 * WEEK_MS;
      const detached = thisWeek - 13 * WEEK_MS;
      for (const start of [pending, detached]) await createWeek(stand.db, rule(), start);
      const rows = [await plant('delivered', pending + DAY_MS), await plant('dead', detached + DAY_MS)];
      // A detach cancelled while it waits for a reader stays pending.
      const reader = await session('SET lock_timeout = 0');
      await reader.startTransaction();
      await reader.query('SELECT count(*) FROM webhook_deliveries');
      const cancelled = await session(`SET statement_timeout = '300ms'`);
      await expect(
        cancelled.query(
          `ALTER TABLE webhook_deliveries DETACH PARTITION ${weekPartitionName('webhook_deliveries', pending)} CONCURRENTLY`,
        ),
      ).rejects.toThrow();
      await reader.commitTransaction();
      await reader.release();
      await cancelled.query('RESET statement_timeout');
      await cancelled.release();
      await stand.db.query(
        `ALTER TABLE webhook_deliveries DETACH PARTITION ${weekPartitionName('webhook_deliveries', detached)}`,
      );
      expect(await detachedWeeks(stand.db, 'webhook_deliveries')).toEqual([detached]);

      await stand.sweep(rules, 10);

      for (const table of ['webhook_deliveries', 'webhook_delivery_attempts']) {
        expect(await weeksOf(table)).not.toContain(pending);
        expect(await weeksOf(table)).not.toContain(detached);
        expect(await detachedWeeks(stand.db, table)).toEqual([]);
      }
      expect(await remainingEverywhere(rows)).toEqual([]);
    }, 30_000);

    it('attaches a detached week back when a delivery in it is unfinished, and keeps it', async () => {
      const start = thisWeek - 14 * WEEK_MS;
      await createWeek(stand.db, rule(), start);
      const unfinished = await plant('pending', start + DAY_MS);
      await stand.db.query(
        `ALTER TABLE webhook_deliveries DETACH PARTITION ${weekPartitionName('webhook_deliveries', start)}`,
      );

      await stand.sweep(rules, 10);

      expect(await weeksOf('webhook_deliveries')).toContain(start);
      expect(await detachedWeeks(stand.db, 'webhook_deliveries')).toEqual([]);
      expect(await remainingEverywhere([unfinished])).toEqual([unfinished]);
    }, 30_000);
  });
});
