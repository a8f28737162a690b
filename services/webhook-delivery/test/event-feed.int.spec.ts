// Proves the events feed against real PostgreSQL (a scratch database with this
// service's migrations, so the running stack's workers do not touch the rows):
// a reader paging by event id never skips or repeats an event while writers
// insert concurrently, including a writer whose transaction commits after a
// later one (the case a position taken at insert would get wrong); the cursor
// refusals (unknown, another partner's, expired), the type filter and the
// on-demand positioning of a cursor the positioner has not reached; the page
// as one JSON array equal to the per-event page; and a
// partner's retry: its own dead or failing delivery only, idempotent, limited
// per minute; the positioner's backlog (events without a position, the oldest's
// age) as the reconciler reports it.
import { randomUUID } from 'node:crypto';
import { createLogger, runWithContext } from '@platform/logger';
import { Registry } from '@platform/metrics';
import type { DataSource } from '@platform/persistence';
import { createScratchDatabase, ScratchDatabase } from '@platform/testing';
import { DeliveryMetrics } from '../src/metrics/delivery-metrics';
import { webhookDeliveryDataSource } from '../src/persistence/data-source';
import { DeliveriesRepository, NewDelivery } from '../src/persistence/deliveries.repository';
import { EventFeedRepository } from '../src/persistence/event-feed.repository';
import { ListEventsUseCase } from '../src/usecases/list-events/list-events.usecase';
import { ReplayDeliveryUseCase } from '../src/usecases/replay-delivery/replay-delivery.usecase';

const RETENTION_DAYS = 30;
const PAGE = 7;

let scratch: ScratchDatabase;
let db: DataSource;
let deliveries: DeliveriesRepository;
let feed: EventFeedRepository;
let listEvents: ListEventsUseCase;

beforeAll(async () => {
  scratch = await createScratchDatabase('webhook_event_feed');
  db = await webhookDeliveryDataSource(scratch.url).initialize();
  await db.runMigrations({ transaction: 'each' });
  deliveries = new DeliveriesRepository(db);
  feed = new EventFeedRepository(db);
  listEvents = new ListEventsUseCase(feed, { retentionDays: RETENTION_DAYS, positionBatchSize: 500 });
});

afterAll(async () => {
  await db?.destroy();
  await scratch?.drop();
});

const newDelivery = (partnerId: string, eventType = 'credit.received'): NewDelivery => {
  const eventId = randomUUID();
  return {
    deliveryId: randomUUID(),
    eventId,
    partnerId,
    eventType,
    body: JSON.stringify({ id: eventId, type: eventType, createdAt: new Date().toISOString(), data: {} }),
    createdAt: new Date(),
  };
};

/** Every event after `after`, page by page, as a partner catching up would read them. */
async function drain(partnerId: string, after: string, eventType = ''): Promise<{ ids: string[]; last: string }> {
  const ids: string[] = [];
  let cursor = after;
  for (;;) {
    const page = await listEvents.execute({ partnerId, afterEventId: cursor, eventType, limit: PAGE });
    ids.push(...page.events.map((event) => event.eventId));
    if (page.events.length > 0) cursor = page.events[page.events.length - 1]!.eventId;
    if (!page.nextAfterEventId) return { ids, last: cursor };
  }
}

describe('the events feed while events arrive', () => {
  it('shows an event whose transaction committed late after the later ones, never skipping it', async () => {
    const partnerId = randomUUID();
    const early = newDelivery(partnerId);
    const late = newDelivery(partnerId);
    const runner = db.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      // `early` is inserted first but its transaction stays open; `late` commits at once.
      await runner.query(
        `INSERT INTO webhook_deliveries (delivery_id, event_id, partner_id, event_type, body, status)
        VALUES ($1, $2, $3, $4, $5, 'no_endpoint')`,
        [early.deliveryId, early.eventId, partnerId, early.eventType, early.body],
      );
      await deliveries.insertMany([late]);
      await feed.assignPositions(500);
      const first = await drain(partnerId, '');
      expect(first.ids).toEqual([late.eventId]);
      await runner.commitTransaction();
    } finally {
      await runner.release();
    }
    await feed.assignPositions(500);
    expect((await drain(partnerId, late.eventId)).ids).toEqual([early.eventId]);
    expect((await drain(partnerId, '')).ids).toEqual([late.eventId, early.eventId]);
  });

  it('pages every event exactly once while several writers insert and the positioner runs', async () => {
    const partnerId = randomUUID();
    const written: string[] = [];
    let writing = true;
    const writer = async () => {
      for (let batch = 0; batch < 15; batch += 1) {
        const rows = Array.from({ length: 1 + (batch % 4) }, () => newDelivery(partnerId));
        await deliveries.insertMany(rows);
        written.push(...rows.map((row) => row.eventId));
      }
    };
    const positioner = async () => {
      while (writing) await feed.assignPositions(3);
    };
    const seen: string[] = [];
    const reader = async () => {
      let cursor = '';
      while (writing) {
        const { ids, last } = await drain(partnerId, cursor);
        seen.push(...ids);
        cursor = last;
      }
      return cursor;
    };
    const positioning = positioner();
    const reading = reader();
    await Promise.all([writer(), writer(), writer(), writer()]);
    writing = false;
    await positioning;
    const cursor = await reading;
    await feed.assignPositions(500);
    seen.push(...(await drain(partnerId, cursor)).ids);
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort()).toEqual([...written].sort());
  });
});

describe('the feed cursor and filters', () => {
  it("refuses an unknown cursor, another partner's event and an expired one", async () => {
    const [mine, theirs] = [randomUUID(), randomUUID()];
    const [own, foreign, old] = [newDelivery(mine), newDelivery(theirs), newDelivery(mine)];
    await deliveries.insertMany([own, foreign, old]);
    await feed.assignPositions(500);
    await db.query(`UPDATE webhook_deliveries SET created_at = now() - interval '31 days' WHERE delivery_id = $1`, [
      old.deliveryId,
    ]);
    const read = (after: string) =>
      listEvents.execute({ partnerId: mine, afterEventId: after, eventType: '', limit: 0 });
    await expect(read(randomUUID())).rejects.toMatchObject({ code: 'EVENT_CURSOR_UNKNOWN' });
    await expect(read(foreign.eventId)).rejects.toMatchObject({ code: 'EVENT_CURSOR_UNKNOWN' });
    await expect(read(old.eventId)).rejects.toMatchObject({ code: 'EVENT_CURSOR_EXPIRED' });
    // The expired event is no longer served from the start either.
    expect((await read('')).events.map((event) => event.eventId)).toEqual([own.eventId]);
    await expect(
      listEvents.execute({ partnerId: mine, afterEventId: 'nope', eventType: 'order.unknown', limit: 101 }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED', fields: ['after', 'type', 'limit'] });
  });

  it('filters by type from a cursor of any type, and positions a cursor the positioner has not reached', async () => {
    const partnerId = randomUUID();
    const credit = newDelivery(partnerId, 'credit.received');
    const settled = newDelivery(partnerId, 'order.settled');
    await deliveries.insertMany([credit]);
    await feed.assignPositions(500);
    await deliveries.insertMany([settled]);
    await deliveries.insertMany([newDelivery(partnerId, 'order.settled')]);
    // `settled` has no position yet: reading after it runs one step first.
    const page = await listEvents.execute({ partnerId, afterEventId: settled.eventId, eventType: '', limit: 0 });
    expect(page.events).toHaveLength(1);
    const typed = await listEvents.execute({
      partnerId,
      afterEventId: credit.eventId,
      eventType: 'order.settled',
      limit: 0,
    });
    expect(typed.events.map((event) => event.eventType)).toEqual(['order.settled', 'order.settled']);
    expect(typed.events[0]).toMatchObject({ eventId: settled.eventId, body: settled.body });
  });
});

describe("the positioner's backlog", () => {
  it('counts the events without a position and ages the oldest, and reads none once they are numbered', async () => {
    await feed.assignPositions(5_000);
    expect(await feed.unpositioned()).toEqual({ count: 0, oldestAgeSeconds: 0 });
    const partnerId = randomUUID();
    const [oldest, newer] = [newDelivery(partnerId), newDelivery(partnerId)];
    await deliveries.insertMany([oldest, newer]);
    await db.query(`UPDATE webhook_deliveries SET created_at = now() - interval '90 seconds' WHERE delivery_id = $1`, [
      oldest.deliveryId,
    ]);
    const backlog = await feed.unpositioned();
    expect(backlog.count).toBe(2);
    expect(backlog.oldestAgeSeconds).toBeGreaterThanOrEqual(90);
    expect(backlog.oldestAgeSeconds).toBeLessThan(90 + 60);
    await feed.assignPositions(5_000);
    expect(await feed.unpositioned()).toEqual({ count: 0, oldestAgeSeconds: 0 });
  });
});

describe('the feed as one JSON array', () => {
  it('is the per-event page joined byte for byte, with the same next cursor, from any cursor and type', async () => {
    const partnerId = randomUUID();
    const written = Array.from({ length: 9 }, (_, index) =>
      newDelivery(partnerId, index % 3 === 0 ? 'order.settled' : 'credit.received'),
    );
    // A body with non-ASCII text and escapes crosses as the same UTF-8 bytes.
    written[4]!.body = JSON.stringify({
      id: written[4]!.eventId,
      type: 'credit.received',
      data: { note: 'Ksh «1» ✓\n' },
    });
    // One at a time, each event created a millisecond after the one before, so feed order is the
    // order written (a step numbers by creation time, then delivery id).
    const firstCreatedMs = Date.now();
    for (const [index, row] of written.entries())
      await deliveries.insertMany([{ ...row, createdAt: new Date(firstCreatedMs + index) }]);
    await feed.assignPositions(500);
    for (const afterEventId of ['', written[2]!.eventId, written[8]!.eventId])
      for (const eventType of ['', 'order.settled'])
        for (const limit of [1, 4, 100]) {
          const query = { partnerId, afterEventId, eventType, limit };
          const [events, array] = [await listEvents.execute(query), await listEvents.executeAsJsonArray(query)];
          expect(array.json).toBe(`[${events.events.map((event) => event.body).join(',')}]`);
          expect(array.nextAfterEventId).toBe(events.nextAfterEventId);
        }
    const first = await listEvents.executeAsJsonArray({ partnerId, afterEventId: '', eventType: '', limit: 4 });
    expect((JSON.parse(first.json) as Array<{ id: string }>).map((event) => event.id)).toEqual(
      written.slice(0, 4).map((row) => row.eventId),
    );
    expect(first.nextAfterEventId).toBe(written[3]!.eventId);
  });
});

describe('a partner retrying its own delivery', () => {
  const metrics = new DeliveryMetrics(new Registry());
  const replay = () => new ReplayDeliveryUseCase(db, deliveries, metrics, createLogger('spec', 'error'));
  const retry = (partnerId: string, deliveryId: string, retriesPerMinute = 10) =>
    runWithContext({ caller: 'gateway', requestId: randomUUID() }, () =>
      replay().execute(deliveryId, { partnerId, retriesPerMinute }),
    );

  async function deliveryIn(partnerId: string, status: string, attemptCount: number): Promise<string> {
    const delivery = newDelivery(partnerId);
    await db.query(
      `INSERT INTO endpoints (partner_id, url, secret_sealed) VALUES ($1, 'https://hooks.example.com/x', 'sealed') ON CONFLICT DO NOTHING`,
      [partnerId],
    );
    await db.query(
      `INSERT INTO webhook_deliveries (delivery_id, event_id, partner_id, event_type, body, endpoint_url, status, attempt_count, next_attempt_at)
      VALUES ($1, $2, $3, $4, $5, 'https://hooks.example.com/x', $6, $7, CASE WHEN $6 = 'pending' THEN now() + interval '1 hour' END)`,
      [delivery.deliveryId, delivery.eventId, partnerId, delivery.eventType, delivery.body, status, attemptCount],
    );
    return delivery.deliveryId;
  }

  it("re-opens its dead and failing deliveries once, and answers another partner's as unknown", async () => {
    const [partnerId, other] = [randomUUID(), randomUUID()];
    const dead = await deliveryIn(partnerId, 'dead', 7);
    const failing = await deliveryIn(partnerId, 'pending', 2);
    await expect(retry(other, dead)).rejects.toMatchObject({ code: 'DELIVERY_NOT_FOUND' });
    expect(await retry(partnerId, dead)).toEqual({ deliveryId: dead, status: 'pending' });
    expect(await retry(partnerId, failing)).toEqual({ deliveryId: failing, status: 'pending' });
    // Both are due now with a fresh round; asking again changes nothing and spends no retry.
    const rows = await db.query(
      'SELECT attempt_count, replay_count, next_attempt_at <= now() AS due FROM webhook_deliveries WHERE delivery_id = ANY($1)',
      [[dead, failing]],
    );
    expect(rows).toEqual([
      { attempt_count: 0, replay_count: 1, due: true },
      { attempt_count: 0, replay_count: 1, due: true },
    ]);
    expect(await retry(partnerId, dead)).toEqual({ deliveryId: dead, status: 'pending' });
    const [{ used }] = await db.query('SELECT count(*)::int AS used FROM partner_retries WHERE partner_id = $1', [
      partnerId,
    ]);
    expect(used).toBe(2);
  });

  it('leaves a delivered one as it is, and refuses re-openings past the per-minute limit', async () => {
    const partnerId = randomUUID();
    const delivered = await deliveryIn(partnerId, 'dead', 7);
    await db.query(`UPDATE webhook_deliveries SET status = 'delivered', delivered_at = now() WHERE delivery_id = $1`, [
      delivered,
    ]);
    expect(await retry(partnerId, delivered, 1)).toEqual({ deliveryId: delivered, status: 'delivered' });
    const [first, second] = [await deliveryIn(partnerId, 'dead', 7), await deliveryIn(partnerId, 'dead', 7)];
    expect(await retry(partnerId, first, 1)).toEqual({ deliveryId: first, status: 'pending' });
    await expect(retry(partnerId, second, 1)).rejects.toMatchObject({
      code: 'WEBHOOK_RETRY_LIMITED',
      retryAfterSeconds: expect.any(Number),
    });
    const [row] = await db.query('SELECT status FROM webhook_deliveries WHERE delivery_id = $1', [second]);
    expect(row.status).toBe('dead');
  });
});
