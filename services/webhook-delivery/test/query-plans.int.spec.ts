// Proves webhook-delivery's hot reads and writes cost the same whatever the history around
// them: a scratch database with this service's migrations, endpoints for 10,000 partners,
// delivered (and some dead) deliveries with their attempts for many of them, all placed in
// the events feed, and each hot operation run through its own repository with every
// statement planned by EXPLAIN (ANALYZE). The hot partner's history then grows a
// hundredfold (other partners' tenfold) and the same operations run again:
// - no statement reads a table that grows (deliveries, delivery_attempts) sequentially;
// - rows examined per table stay within 1.2× (and a few rows) of the run before.
// History stays inside the feed's retention window, as a live partner's does.
// Then a burst beside that week of finished deliveries: the claim must read rows of its batch and of
// what is in flight, not of every due row (the statistics see the finished week, not the burst).
import { randomUUID } from 'node:crypto';
import {
  DataSource,
  EntityManager,
  KeysetPosition,
  PageBounds,
  weekPartitionName,
  weekStartMs,
} from '@platform/persistence';
import {
  describeFlatQueries,
  explaining,
  ExplainingQueryable,
  HistoryGrowth,
  HistorySeed,
  PlannedOperation,
  seedHistories,
  totalRowsExamined,
} from '@platform/testing';
import { webhookDeliveryDataSource } from '../src/persistence/data-source';
import { AttemptRecording, ClaimedDelivery, DeliveriesRepository } from '../src/persistence/deliveries.repository';
import { EndpointsRepository } from '../src/persistence/endpoints.repository';
import { EventFeedRepository } from '../src/persistence/event-feed.repository';
import { PartnerDeliveriesRepository } from '../src/persistence/partner-deliveries.repository';

/**
 * Deliveries and attempts are partitioned by week: a plan names the partition it reads. History before
 * this week's Monday sits in the default partitions (`deliveries`, `delivery_attempts`), live rows in
 * the weekly ones. The default partitions grow, and so does each weekly partition that holds rows;
 * the weeks kept ready ahead hold none yet, and the planner rightly reads an empty table in one step,
 * so those join the list only once they hold rows (each analysis adds them, WEEKLY_PARTITIONS_HOLDING_ROWS).
 * `endpoints` grows with the partners (one row each, 10,000 here), not with their history: no
 * statement of a batch may read it whole.
 */
const GROWING_TABLES = ['deliveries', 'delivery_attempts', 'partner_retries', 'endpoints'];
const WEEKLY_PARTITIONS_HOLDING_ROWS = `
  SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
   WHERE i.inhparent IN ('webhook_deliveries'::regclass, 'webhook_delivery_attempts'::regclass)
     AND c.relname ~ '_[0-9]{8}$' AND c.reltuples > 0`;
const PARTNERS_WITH_ENDPOINTS = 10_000;
const OTHER_PARTNERS = 40;
/** Deliveries (each with one attempt) per partner before, and added after, for the hot partner and the others. */
const HISTORY: HistoryGrowth = {
  hotBefore: 300,
  hotAdded: 30_000,
  otherBefore: 100,
  otherAdded: 1_000,
  // The hot partner's last five hours, then 30,000 more over the 21 days before; the others' last week, then 25 days.
  stepMs: { hotBefore: 60_000, hotAdded: 60_000, otherBefore: 6_000_000, otherAdded: 1_500_000 },
};
/**
 * One delivery in this many of the first history is dead; the rest, and all the history added
 * later, were delivered: dead ones stay rare while history grows, so a page of them must not
 * cost the partner's whole history.
 */
const DEAD_EVERY = 50;
const SEED_TIMEOUT_MS = 300_000;
/** The accept path's batch at its default size (CONSUMER_BATCH_SIZE). */
const ACCEPT_BATCH = 128;
const ENDPOINT_URL = 'https://partner.example/webhooks';

async function newPartner(db: DataSource): Promise<string> {
  const partnerId = randomUUID();
  await db.query(`INSERT INTO endpoints (partner_id, url, secret_sealed) VALUES ($1, $2, 'sealed-secret')`, [
    partnerId,
    ENDPOINT_URL,
  ]);
  return partnerId;
}

/**
 * `count` closed deliveries of `partnerId`, one every `stepMs` back from `before`, each
 * with the attempt that closed it: in the first history every DEAD_EVERY-th dead, the rest
 * (and all that is added) delivered; event types alternate between two.
 */
async function seedDeliveries(
  db: DataSource,
  partnerId: string,
  { count, before, stepMs, firstHistory }: HistorySeed,
): Promise<void> {
  const deadEvery = firstHistory ? DEAD_EVERY : 0;
  await db.query(
    `WITH made AS (
       SELECT gen_random_uuid() AS delivery_id, $2::timestamptz - g * make_interval(secs => $3::double precision / 1000) AS at,
              CASE WHEN $5::int > 0 AND g % $5::int = 0 THEN 'dead' ELSE 'delivered' END AS status,
              CASE WHEN g % 2 = 0 THEN 'transfer.completed' ELSE 'order.settled' END AS event_type
         FROM generate_series(1, $4::int) AS g
     ), delivered AS (
       INSERT INTO webhook_deliveries (delivery_id, event_id, partner_id, event_type, body, endpoint_url, status, attempt_count,
                               last_status_code, last_error_class, last_latency_ms, created_at, delivered_at)
       SELECT delivery_id, gen_random_uuid(), $1, event_type, '{"id":"seeded","data":{}}', $6, status, 1,
              CASE WHEN status = 'delivered' THEN 200 END, CASE WHEN status = 'dead' THEN 'timeout' END, 120, at,
              CASE WHEN status = 'delivered' THEN at + interval '1 second' END
         FROM made
       RETURNING delivery_id, status, created_at
     )
     INSERT INTO webhook_delivery_attempts (id, delivery_id, delivery_created_at, attempt_number, started_at, latency_ms,
                                            status_code, error_class)
     SELECT gen_random_uuid(), delivery_id, created_at, 1, created_at, 120, CASE WHEN status = 'delivered' THEN 200 END,
            CASE WHEN status = 'dead' THEN 'timeout' END
       FROM delivered`,
    [partnerId, before, stepMs, count, deadEvery, ENDPOINT_URL],
  );
}

/** Pending deliveries whose attempts failed so far, due later: a partner's few open ones (they do not grow). */
async function seedFailing(db: DataSource, partnerId: string, count: number): Promise<void> {
  await db.query(
    `INSERT INTO webhook_deliveries (delivery_id, event_id, partner_id, event_type, body, endpoint_url, status, attempt_count,
                             next_attempt_at, last_error_class, created_at)
     SELECT gen_random_uuid(), gen_random_uuid(), $1, 'order.settled', '{}', $3, 'pending', 2, now() + interval '1 hour',
            'timeout', now() - g * interval '1 minute'
       FROM generate_series(1, $2::int) AS g`,
    [partnerId, count, ENDPOINT_URL],
  );
}

/**
 * Places every committed delivery in the feed, by the service's own step, then refreshes the statistics
 * (of every partition: VACUUM of a partitioned table covers its partitions) and counts the weekly
 * partitions now holding rows among the growing tables.
 */
async function positionAndAnalyse(db: DataSource): Promise<void> {
  await new EventFeedRepository(db).assignPositions(1_000_000);
  for (const table of ['endpoints', 'webhook_deliveries', 'webhook_delivery_attempts', 'partner_retries'])
    await db.query(`VACUUM (ANALYZE) ${table}`);
  const holding = (await db.query(WEEKLY_PARTITIONS_HOLDING_ROWS)) as Array<{ name: string }>;
  for (const { name } of holding) if (!GROWING_TABLES.includes(name)) GROWING_TABLES.push(name);
}

/** What the operations share within one measurement: the live batch, what was claimed, cursors. */
interface Context {
  live: Array<{ deliveryId: string; eventId: string }>;
  claimed: ClaimedDelivery[];
  /** The hot partner's event with 150 events after it in the feed. */
  feedCursorEventId: string;
  /** The hot partner's newest event in the feed (a partner polling the tail). */
  feedTailEventId: string;
  /** The keyset position of the hot partner's 150th newest delivery. */
  listCursor: KeysetPosition;
  deadDeliveryId: string;
}

type Operation = PlannedOperation<Context>;

const firstPage: PageBounds = { from: null, to: null, after: null, fetchLimit: 101, pageLimit: 100 };
const RETENTION_MS = 30 * 24 * 3_600_000;

function attempt(claimed: ClaimedDelivery, statusCode: number | null): AttemptRecording['attempt'] {
  return {
    attemptId: randomUUID(),
    attemptNumber: claimed.attemptCount + 1,
    startedAt: new Date(),
    latencyMs: 80,
    statusCode,
    errorClass: statusCode === null ? 'timeout' : null,
    responseExcerpt: '',
  };
}

function claimedAt(context: Context, index: number): ClaimedDelivery {
  const claimed = context.claimed[index];
  if (!claimed) throw new Error(`the claim took ${context.claimed.length} deliveries, not ${index + 1}`);
  return claimed;
}

/**
 * The hot path's statements on the tables that grow, by operation, in the order they run.
 * The feed's pages, from the start or of one event type, are read along the partner's own
 * indexes: no other index gives the feed's order (the position index the feed step reads its
 * top from is on `feed_position + 0`). With a plain position index, a partner holding a large
 * share of a partition had the planner walk it and filter out every other partner's rows
 * (a first page went from 303 to 11,000 rows examined when the history grew).
 */
function operations(partnerId: string, others: readonly string[]): Record<string, Operation> {
  const deliveries = (q: ExplainingQueryable) => new DeliveriesRepository(q as unknown as DataSource);
  const endpoints = (q: ExplainingQueryable) => new EndpointsRepository(q as unknown as DataSource);
  const feed = (q: ExplainingQueryable) => new EventFeedRepository(q as unknown as DataSource);
  const partnerList = (q: ExplainingQueryable) => new PartnerDeliveriesRepository(q as unknown as DataSource);
  const manager = (q: ExplainingQueryable) => q as unknown as EntityManager;
  const notBefore = () => new Date(Date.now() - RETENTION_MS);
  /** A page of 100 of the hot partner's feed, as the lines path (`read`) or the gateway's (`readJsonArray`) reads it. */
  const feedPage = (
    q: ExplainingQueryable,
    how: 'read' | 'readJsonArray',
    afterPosition: string,
    eventType: string | null = null,
  ) => feed(q)[how]({ partnerId, afterPosition, eventType, notBefore: notBefore(), limit: 100 });
  const positionOf = async (q: ExplainingQueryable, eventId: string) => {
    const cursor = await feed(q).cursorPosition(partnerId, eventId);
    if (cursor.kind !== 'positioned') throw new Error(`the feed event ${eventId} has no position`);
    return cursor.position;
  };
  return {
    'insert a batch of deliveries with their endpoints': (q, context) =>
      deliveries(q).insertMany(
        context.live.map(({ deliveryId, eventId }) => ({
          deliveryId,
          eventId,
          partnerId,
          eventType: 'transfer.completed',
          body: '{"id":"live"}',
          traceparent: null,
          createdAt: new Date(),
        })),
      ),
    // Partners without an endpoint, so these are held (no_endpoint) and the claim below takes only the live batch.
    'insert a full batch of deliveries for partners without an endpoint': (q) =>
      deliveries(q).insertMany(
        Array.from({ length: ACCEPT_BATCH }, () => ({
          deliveryId: randomUUID(),
          eventId: randomUUID(),
          partnerId: randomUUID(),
          eventType: 'transfer.completed',
          body: '{"id":"held"}',
          traceparent: null,
          createdAt: new Date(),
        })),
      ),
    'claim due deliveries under the in-flight cap': async (q, context) => {
      context.claimed = await deliveries(q).claimDue({ limit: 50, endpointInFlightMax: 10, leaseMs: 30_000 });
    },
    'record a failed attempt (retry later)': (q, context) =>
      deliveries(q).recordAttempts([
        {
          claimed: claimedAt(context, 0),
          attempt: attempt(claimedAt(context, 0), null),
          next: { status: 'pending', delayMs: 3_600_000 },
        },
      ]),
    'mark a delivery delivered': (q, context) =>
      deliveries(q).recordAttempts([
        { claimed: claimedAt(context, 1), attempt: attempt(claimedAt(context, 1), 200), next: { status: 'delivered' } },
      ]),
    'return expired leases': (q) => deliveries(q).releaseExpiredLeases(),
    'count overdue deliveries': (q) => deliveries(q).overdue(60_000),
    'find the partner endpoint': (q) => endpoints(q).find(partnerId),
    'lock the partner endpoint': (q) => endpoints(q).findForUpdate(manager(q), partnerId),
    'endpoint urls of a batch of partners': (q) => endpoints(q).findUrls([partnerId, ...others.slice(0, 20)]),
    'open deliveries held for a new endpoint': (q) =>
      deliveries(q).openHeld(partnerId, ENDPOINT_URL, notBefore(), manager(q)),
    'feed: where a cursor event stands': (q, context) => feed(q).cursorPosition(partnerId, context.feedCursorEventId),
    'feed: first page from the start': (q) => feedPage(q, 'read', '0'),
    'feed: one event type from the start': (q) => feedPage(q, 'read', '0', 'transfer.completed'),
    'feed: a full page after a cursor': async (q, context) =>
      feedPage(q, 'read', await positionOf(q, context.feedCursorEventId)),
    'feed: first page from the start as the JSON array': (q) => feedPage(q, 'readJsonArray', '0'),
    'feed: one event type from the start as the JSON array': (q) =>
      feedPage(q, 'readJsonArray', '0', 'transfer.completed'),
    'feed: a full page after a cursor as the JSON array': async (q, context) =>
      feedPage(q, 'readJsonArray', await positionOf(q, context.feedCursorEventId)),
    'feed: polling the tail': async (q, context) => feedPage(q, 'read', await positionOf(q, context.feedTailEventId)),
    'deliveries: newest 100 of a partner': (q) => partnerList(q).list(partnerId, null, firstPage),
    'deliveries: next page by cursor': (q, context) =>
      partnerList(q).list(partnerId, null, { ...firstPage, after: context.listCursor }),
    'deliveries: newest delivered': (q) => partnerList(q).list(partnerId, 'delivered', firstPage),
    'deliveries: newest dead': (q) => partnerList(q).list(partnerId, 'dead', firstPage),
    'deliveries: newest failing': (q) => partnerList(q).list(partnerId, 'failing', firstPage),
    'deliveries: one by id': (q, context) => partnerList(q).get(partnerId, context.deadDeliveryId),
    'operator: newest dead deliveries of a partner': (q) => deliveries(q).listForPartner(partnerId, true, 100),
    'replay one dead delivery': (q, context) =>
      deliveries(q).replayOne(context.deadDeliveryId, manager(q), {
        partnerId,
        reopenFailing: true,
        reopenDelivered: false,
      }),
  };
}

/** The live batch, cursors into the hot partner's feed and list, and its newest dead delivery. */
async function contextNow(db: DataSource, hotPartner: string): Promise<Context> {
  const positioned = (await db.query(
    `SELECT event_id FROM webhook_deliveries WHERE partner_id = $1 AND feed_position IS NOT NULL
     ORDER BY feed_position DESC LIMIT 151`,
    [hotPartner],
  )) as Array<{ event_id: string }>;
  const newest = await new PartnerDeliveriesRepository(db).list(hotPartner, null, { ...firstPage, fetchLimit: 150 });
  const [dead] = (await db.query(
    `SELECT delivery_id FROM webhook_deliveries WHERE partner_id = $1 AND status = 'dead' ORDER BY created_at DESC LIMIT 1`,
    [hotPartner],
  )) as Array<{ delivery_id: string }>;
  return {
    live: [1, 2].map(() => ({ deliveryId: randomUUID(), eventId: randomUUID() })),
    claimed: [],
    feedCursorEventId: positioned[150].event_id,
    feedTailEventId: positioned[0].event_id,
    listCursor: newest[149].position,
    deadDeliveryId: dead.delivery_id,
  };
}

/**
 * A burst as the accept path leaves it: BURST_DELIVERIES due now over BURST_PARTNERS partners, each
 * partner with BURST_IN_FLIGHT_EACH already in flight (leased), all in this week's partition, which the
 * planner last saw holding finished deliveries only. The claim takes BURST_CLAIM of them under the cap:
 * far fewer than the partners with free slots, so a claim that gathers every free partner's rows reads
 * more than one that takes the partners whose due rows come first.
 */
const BURST_PARTNERS = 256;
const BURST_DELIVERIES = 1_024;
const BURST_IN_FLIGHT_EACH = 2;
const BURST_CLAIM = 32;
const BURST_IN_FLIGHT_MAX = 4;
/**
 * A partner already at its cap (its endpoint hangs) whose due backlog comes first in due order: the
 * claim passes it by without reading it. A walk that filters the partner out row by row reads all of it.
 */
const CAPPED_DUE = 2_000;
/**
 * Rows the claim may read of the deliveries per delivery it claims: the walk in due order up to its
 * batch with its lock (about five a row walked), the lookup that locks a candidate, the lease written.
 * A walk of every due row (sorting the backlog) reads BURST_DELIVERIES and more.
 */
const CLAIM_ROWS_PER_ROW_MAX = 6;
/**
 * Rows the claim may read per partner with pending deliveries: its entry in the walk of the partners and
 * its earliest due row (a week holding some).
 */
const CLAIM_ROWS_PER_PENDING_PARTNER_MAX = 2;

/** The burst's partners (the capped one last) and the capped partner's due rows. */
async function seedBurst(db: DataSource): Promise<{ partners: string[]; cappedDue: string[] }> {
  const partners: string[] = [];
  for (let index = 0; index < BURST_PARTNERS; index += 1) partners.push(await newPartner(db));
  const capped = await newPartner(db);
  await db.query(
    `INSERT INTO webhook_deliveries (delivery_id, event_id, partner_id, event_type, body, endpoint_url, status, next_attempt_at,
                                     lease_id, created_at)
     SELECT gen_random_uuid(), gen_random_uuid(), ($1::uuid[])[1 + g % $2], 'transfer.completed', '{"id":"burst"}', $3,
            CASE WHEN g < $2 * $4 THEN 'delivering' ELSE 'pending' END,
            CASE WHEN g < $2 * $4 THEN now() + interval '1 minute' ELSE now() - interval '1 minute' + g * interval '1 millisecond' END,
            CASE WHEN g < $2 * $4 THEN gen_random_uuid() END, now()
       FROM generate_series(0, $5::int - 1) AS g`,
    [
      partners,
      BURST_PARTNERS,
      ENDPOINT_URL,
      BURST_IN_FLIGHT_EACH,
      BURST_DELIVERIES + BURST_PARTNERS * BURST_IN_FLIGHT_EACH,
    ],
  );
  await db.query(
    `INSERT INTO webhook_deliveries (delivery_id, event_id, partner_id, event_type, body, endpoint_url, status, next_attempt_at,
                                     lease_id, created_at)
     SELECT gen_random_uuid(), gen_random_uuid(), $1, 'transfer.completed', '{"id":"burst"}', $2,
            'delivering', now() + interval '1 minute', gen_random_uuid(), now()
       FROM generate_series(1, $3::int)`,
    [capped, ENDPOINT_URL, BURST_IN_FLIGHT_MAX],
  );
  const cappedDue = (await db.query(
    `INSERT INTO webhook_deliveries (delivery_id, event_id, partner_id, event_type, body, endpoint_url, status, next_attempt_at,
                                     created_at)
     SELECT gen_random_uuid(), gen_random_uuid(), $1, 'transfer.completed', '{"id":"burst"}', $2,
            'pending', now() - interval '2 minutes', now()
       FROM generate_series(1, $3::int)
     RETURNING delivery_id`,
    [capped, ENDPOINT_URL, CAPPED_DUE],
  )) as Array<{ delivery_id: string }>;
  return { partners: [...partners, capped], cappedDue: cappedDue.map((row) => row.delivery_id) };
}

/**
 * Autovacuum held off the deliveries' partitions while a check runs: an automatic ANALYZE in the
 * middle would give the planner the burst's true count and hide a plan that sorts the backlog.
 */
async function withoutAutovacuum<T>(db: DataSource, check: () => Promise<T>): Promise<T> {
  const partitions = (await db.query(
    `SELECT c.oid::regclass::text AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'webhook_deliveries'::regclass`,
  )) as Array<{ name: string }>;
  const set = (enabled: boolean) =>
    Promise.all(partitions.map(({ name }) => db.query(`ALTER TABLE ${name} SET (autovacuum_enabled = ${enabled})`)));
  await set(false);
  try {
    return await check();
  } finally {
    await set(true);
  }
}

describeFlatQueries({
  title: 'webhook-delivery hot queries against a growing history',
  scratchName: 'webhook_delivery_query_plans',
  serviceDataSource: webhookDeliveryDataSource,
  growingTables: GROWING_TABLES,
  timeoutMs: SEED_TIMEOUT_MS,
  async seedBefore(db) {
    await db.query(
      `INSERT INTO endpoints (partner_id, url, secret_sealed)
       SELECT gen_random_uuid(), $2, 'sealed-secret' FROM generate_series(1, $1::int)`,
      [PARTNERS_WITH_ENDPOINTS, ENDPOINT_URL],
    );
    const hotPartner = await newPartner(db);
    const others: string[] = [];
    for (let index = 0; index < OTHER_PARTNERS; index += 1) others.push(await newPartner(db));
    const partners = { hotPartner, others, now: new Date() };
    await seedHistories(db, partners, HISTORY, 'before', seedDeliveries);
    await seedFailing(db, hotPartner, 3);
    return partners;
  },
  seedAdded: (db, partners) => seedHistories(db, partners, HISTORY, 'added', seedDeliveries),
  analyse: positionAndAnalyse,
  liveContext: (db, { hotPartner }) => contextNow(db, hotPartner),
  async afterMeasure(db, context) {
    expect(context.claimed.map((claimed) => claimed.deliveryId).sort()).toEqual(
      context.live.map((live) => live.deliveryId).sort(),
    );
    // The replayed delivery is due now: closed again, so the next measurement claims only its own batch.
    await db.query(`UPDATE webhook_deliveries SET status = 'dead', next_attempt_at = NULL WHERE delivery_id = $1`, [
      context.deadDeliveryId,
    ]);
  },
  operations: ({ hotPartner, others }) => operations(hotPartner, others),
  // Counted over the partitioned tables: the default partitions and every week.
  minimumRows: {
    webhook_deliveries: HISTORY.hotAdded + OTHER_PARTNERS * HISTORY.otherAdded,
    webhook_delivery_attempts: HISTORY.hotAdded + OTHER_PARTNERS * HISTORY.otherAdded,
  },
  moreChecks(database) {
    it('claims a batch of a burst reading its batch and what is in flight, not every due row', async () => {
      const db = database();
      const { partners, cappedDue } = await seedBurst(db);
      try {
        const earliestFree = (
          (await db.query(
            `SELECT delivery_id FROM (
               SELECT delivery_id, next_attempt_at,
                      row_number() OVER (PARTITION BY partner_id ORDER BY next_attempt_at, delivery_id) AS slot
                 FROM webhook_deliveries WHERE partner_id = ANY($1::uuid[]) AND status = 'pending') ranked
              WHERE slot <= $2
              ORDER BY next_attempt_at, delivery_id
              LIMIT $3`,
            [partners.slice(0, BURST_PARTNERS), BURST_IN_FLIGHT_MAX - BURST_IN_FLIGHT_EACH, BURST_CLAIM],
          )) as Array<{ delivery_id: string }>
        ).map((row) => row.delivery_id);
        const queryable = explaining(db);
        const claimed = await withoutAutovacuum(db, () =>
          new DeliveriesRepository(queryable as unknown as DataSource).claimDue({
            limit: BURST_CLAIM,
            endpointInFlightMax: BURST_IN_FLIGHT_MAX,
            leaseMs: 30_000,
          }),
        );
        expect(claimed).toHaveLength(BURST_CLAIM);
        expect(claimed.map((c) => c.deliveryId).filter((id) => cappedDue.includes(id))).toEqual([]);
        const rowsRead = Object.entries(totalRowsExamined(queryable.explained))
          .filter(([table]) => table === 'deliveries' || table.startsWith('webhook_deliveries'))
          .reduce((sum, [, rows]) => sum + rows, 0);
        // The earliest due rows of the partners below their cap, each partner's ranked after what it has in flight.
        expect(claimed.map((c) => c.deliveryId).sort()).toEqual(earliestFree.sort());
        // The capped partner's backlog is not read: its in-flight rows are counted (once a step), its pending
        // rows cost an index entry and a row, whatever their number. Only the partners that give the batch
        // are counted in flight and give candidates (up to their free slots); a claim that gathers every
        // free partner's rows reads them for all BURST_PARTNERS.
        // The burst's partners, the capped one, and the hot partner (its failing deliveries are due in an hour).
        const pendingPartners = BURST_PARTNERS + 2;
        const rowsMax =
          CLAIM_ROWS_PER_PENDING_PARTNER_MAX * pendingPartners +
          CLAIM_ROWS_PER_ROW_MAX * BURST_CLAIM +
          // Candidates: the batch's partners' rows up to their free slots.
          BURST_CLAIM * (BURST_IN_FLIGHT_MAX - BURST_IN_FLIGHT_EACH) +
          // In flight, counted up to the cap: the batch's partners and the capped one, in each step.
          (BURST_CLAIM + 2) * BURST_IN_FLIGHT_MAX;
        expect(rowsRead).toBeLessThanOrEqual(rowsMax);
      } finally {
        await db.query('DELETE FROM webhook_deliveries WHERE partner_id = ANY($1::uuid[])', [partners]);
        await db.query('DELETE FROM endpoints WHERE partner_id = ANY($1::uuid[])', [partners]);
      }
    });

    it('seeds this week into weekly partitions of both tables, which count as growing', async () => {
      const thisWeek = weekStartMs(Date.now());
      const [row] = (await database().query(
        `SELECT (SELECT count(*) FROM ${weekPartitionName('webhook_deliveries', thisWeek)})::int AS deliveries,
                (SELECT count(*) FROM ${weekPartitionName('webhook_delivery_attempts', thisWeek)})::int AS attempts`,
      )) as Array<{ deliveries: number; attempts: number }>;
      expect(row!.deliveries).toBeGreaterThan(0);
      expect(row!.attempts).toBeGreaterThan(0);
      expect(GROWING_TABLES).toEqual(
        expect.arrayContaining([
          weekPartitionName('webhook_deliveries', thisWeek),
          weekPartitionName('webhook_delivery_attempts', thisWeek),
        ]),
      );
    });
  },
});
