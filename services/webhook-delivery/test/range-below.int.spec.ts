// Proves that the rows from before the partitioning go, in the end, the way a week goes, against
// PostgreSQL: on a scratch database partitioned ten weeks ago, whose range below the first week
// (`deliveries` and `delivery_attempts`, attached FROM (MINVALUE) TO (<first week>)) holds old
// deliveries with their attempts (under the foreign key the first release gave them) and partner
// retries, the retention worker's sweep prunes the finished ones by batch and keeps the range while
// one delivery in it is unfinished; a range a stopped drop left detached is attached back while so
// held; once that delivery finishes the range is dropped, attempts first, so the database holds only
// weeks. Deliveries go on after (a new event, a late one filed at the floor, claimed and attempted),
// and the rule that pruned the range by batch finds no table and does nothing.
import { randomUUID } from 'node:crypto';
import {
  createWeek,
  partitionRuleOf,
  pruneBatch,
  rangeBelowEndMs,
  RetentionRule,
  WEEK_MS,
  weeklyPartitions,
  weekStartMs,
} from '@platform/persistence';
import { RetentionStand, retentionStand } from '@platform/testing';
import { webhookDeliveryDataSource } from '../src/persistence/data-source';
import { DeliveriesRepository, LATE_EVENT_FILED_WITHIN_DAYS } from '../src/persistence/deliveries.repository';
import { webhookDeliveryRetentionRules } from '../src/workers/retention.worker';
import {
  deliveredRecordings,
  newDelivery,
  partitionedSince,
  PlantedDelivery,
  plantDelivery,
} from './webhook-test-support';

const DAY_MS = 24 * 60 * 60_000;
const RETENTION_DAYS = 37;
const rules = webhookDeliveryRetentionRules({ deliveryRetentionDays: RETENTION_DAYS, partitionsAheadWeeks: 4 });
const [rangeRule, weeklyRule] = rules as [RetentionRule, RetentionRule];
const thisWeek = weekStartMs(Date.now());
/** The first week: the range below ends there, wholly past the window. */
const cutover = thisWeek - 10 * WEEK_MS;

describe('the range below the first week (webhook-delivery)', () => {
  let stand: RetentionStand;
  let position = 0;
  const partnerId = randomUUID();

  beforeAll(async () => {
    stand = await retentionStand('webhook_delivery_range_below', webhookDeliveryDataSource);
    await partitionedSince(stand.db, cutover);
    const rule = partitionRuleOf(weeklyRule, weeklyRule.partitionedByWeek!);
    for (let start = cutover; start < thisWeek; start += WEEK_MS) await createWeek(stand.db, rule, start);
    await stand.db.query(
      `INSERT INTO endpoints (partner_id, url, secret_sealed) VALUES ($1, 'https://example.test/hook', 's')`,
      [partnerId],
    );
  });
  afterAll(() => stand?.drop());

  /** A delivery of `status` created at `createdAtMs` (below the first week: in the range), one attempt, one partner retry. */
  const plant = (status: PlantedDelivery['status'], createdAtMs: number) =>
    plantDelivery(stand.db, { status, createdAtMs, feedPosition: (position += 1), partnerRetry: true });

  async function remaining(table: string, ids: string[]): Promise<string[]> {
    const rows = (await stand.db.query(`SELECT DISTINCT delivery_id FROM ${table} WHERE delivery_id = ANY($1)`, [
      ids,
    ])) as Array<{ delivery_id: string }>;
    return rows.map((row) => row.delivery_id).sort();
  }

  /** `deliveries` and `delivery_attempts`: attached (as the range), detached, or gone. */
  async function rangeTables(): Promise<string[]> {
    const rows = (await stand.db.query(
      `SELECT t.name, CASE WHEN c.oid IS NULL THEN 'gone' WHEN c.relispartition THEN 'attached' ELSE 'detached' END AS state
         FROM unnest(ARRAY['deliveries', 'delivery_attempts']) WITH ORDINALITY AS t(name, position)
         LEFT JOIN pg_class c ON c.oid = to_regclass(t.name)
        ORDER BY t.position`,
    )) as Array<{ name: string; state: string }>;
    return rows.map((row) => `${row.name} ${row.state}`);
  }

  it('keeps the range while a delivery in it is unfinished, its finished rows pruned, even once left detached', async () => {
    const finished = [
      await plant('delivered', cutover - 3 * WEEK_MS),
      await plant('dead', cutover - 2 * WEEK_MS),
      await plant('no_endpoint', cutover - WEEK_MS),
    ];
    const unfinished = await plant('pending', cutover - 2 * DAY_MS);

    await stand.sweep(rules, 10);

    expect(await rangeTables()).toEqual(['deliveries attached', 'delivery_attempts attached']);
    for (const table of ['webhook_deliveries', 'webhook_delivery_attempts', 'partner_retries'])
      expect(await remaining(table, [...finished, unfinished])).toEqual([unfinished]);

    // A drop stopped after its detach, with the delivery still unfinished: the next pass attaches it back.
    await stand.db.query('ALTER TABLE webhook_deliveries DETACH PARTITION deliveries');
    await stand.sweep(rules, 10);

    expect(await rangeTables()).toEqual(['deliveries attached', 'delivery_attempts attached']);
    expect(await rangeBelowEndMs(stand.db, 'webhook_deliveries')).toBe(
      (await weeklyPartitions(stand.db, 'webhook_deliveries'))[0],
    );
    expect(await remaining('webhook_deliveries', [unfinished])).toEqual([unfinished]);
  }, 60_000);

  it('drops the range once nothing in it is unfinished, attempts first; deliveries go on, the range rule idle', async () => {
    await stand.db.query(
      `UPDATE webhook_deliveries SET status = 'delivered', delivered_at = now(), next_attempt_at = NULL
        WHERE status = 'pending' AND created_at < $1`,
      [new Date(cutover)],
    );

    await stand.sweep(rules, 10);

    expect(await rangeTables()).toEqual(['deliveries gone', 'delivery_attempts gone']);
    expect(await rangeBelowEndMs(stand.db, 'webhook_deliveries')).toBeUndefined();
    expect(await rangeBelowEndMs(stand.db, 'webhook_delivery_attempts')).toBeUndefined();
    // The batch rule of the range has no table left: it prunes nothing, and says so without failing.
    expect(await pruneBatch(stand.db, rangeRule, 10)).toBe(0);

    // A new event and a late one (filed at the floor, a week kept) are delivered as before.
    const deliveries = new DeliveriesRepository(stand.db);
    const events = [Date.now(), Date.now() - 80 * DAY_MS].map((createdAtMs) =>
      newDelivery(partnerId, new Date(createdAtMs)),
    );
    expect(await deliveries.insertMany(events)).toEqual(['pending', 'pending']);
    const claimed = await deliveries.claimDue({ limit: 10, endpointInFlightMax: 10, leaseMs: 30_000 });
    expect(claimed.map((c) => c.eventId).sort()).toEqual(events.map((e) => e.eventId).sort());
    expect(Math.min(...claimed.map((c) => c.createdAt.getTime()))).toBe(
      weekStartMs(Date.now() - LATE_EVENT_FILED_WITHIN_DAYS * DAY_MS),
    );
    await deliveries.recordAttempts(deliveredRecordings(claimed));
    const ids = claimed.map((c) => c.deliveryId);
    expect(await remaining('webhook_delivery_attempts', ids)).toEqual([...ids].sort());

    // Run again: nothing left to drop, nothing fails.
    await stand.sweep(rules, 10);
    expect(await remaining('webhook_deliveries', ids)).toEqual([...ids].sort());
  }, 60_000);
});
