// Proves the batched statements of the delivery schedule against real PostgreSQL
// (a scratch database with this service's migrations, so the running stack's
// replicas do not claim the rows): a batch insert makes exactly one delivery per
// (event, partner), whatever is duplicated inside the batch, across batches, or
// sent by two "replicas" at once; the claim hands each due row to one of several
// concurrent claimers and never takes an endpoint past its in-flight cap, with
// the endpoint read in the same statement; and a batch of recorded attempts moves on only the deliveries whose
// lease is still held, keeps every attempt as history, and counts each
// endpoint's run of failures as one attempt at a time would.
import { randomUUID } from 'node:crypto';
import type { DataSource } from '@platform/persistence';
import { createScratchDatabase, ScratchDatabase } from '@platform/testing';
import { webhookDeliveryDataSource } from '../src/persistence/data-source';
import {
  AttemptRecording,
  ClaimedDelivery,
  DeliveriesRepository,
  NewDelivery,
} from '../src/persistence/deliveries.repository';

const LEASE_MS = 60_000;

let scratch: ScratchDatabase;
let db: DataSource;
let deliveries: DeliveriesRepository;

beforeAll(async () => {
  scratch = await createScratchDatabase('webhook_batches');
  db = await webhookDeliveryDataSource(scratch.url).initialize();
  await db.runMigrations({ transaction: 'each' });
  deliveries = new DeliveriesRepository(db);
});

afterAll(async () => {
  await db?.destroy();
  await scratch?.drop();
});

async function addEndpoint(partnerId: string): Promise<void> {
  await db.query(`INSERT INTO endpoints (partner_id, url, secret_sealed) VALUES ($1, $2, 'sealed')`, [
    partnerId,
    `https://hooks.example.com/${partnerId}`,
  ]);
}

const EVENT_CREATED_AT = new Date();
const newDelivery = (eventId: string, partnerId: string): NewDelivery => ({
  deliveryId: randomUUID(),
  eventId,
  partnerId,
  eventType: 'credit.received',
  body: `{"id":"${eventId}"}`,
  // The event's creation time, fixed by its id as a producer's outbox fixes it: a duplicate carries the same.
  createdAt: EVENT_CREATED_AT,
});

async function rowsOf(
  partnerId: string,
): Promise<Array<{ event_id: string; status: string; endpoint_url: string | null }>> {
  return db.query(
    'SELECT event_id, status, endpoint_url FROM webhook_deliveries WHERE partner_id = $1 ORDER BY event_id',
    [partnerId],
  );
}

describe('insertMany', () => {
  it('makes one delivery per (event, partner): duplicates in the batch and across batches are skipped', async () => {
    const partnerId = randomUUID();
    await addEndpoint(partnerId);
    const [a, b] = [randomUUID(), randomUUID()];
    const outcomes = await deliveries.insertMany([
      newDelivery(a, partnerId),
      newDelivery(b, partnerId),
      newDelivery(a, partnerId),
    ]);
    // Either copy of `a` may be the one written; exactly one is.
    expect([outcomes[0], outcomes[2]].sort()).toEqual(['duplicate', 'pending']);
    expect(outcomes[1]).toBe('pending');
    expect(await deliveries.insertMany([newDelivery(b, partnerId)])).toEqual(['duplicate']);
    const rows = await rowsOf(partnerId);
    expect(rows).toHaveLength(2);
    expect(
      rows.every((row) => row.status === 'pending' && row.endpoint_url === `https://hooks.example.com/${partnerId}`),
    ).toBe(true);
  });

  it('holds the deliveries of a partner without an endpoint, beside others in the same batch', async () => {
    const [withEndpoint, without] = [randomUUID(), randomUUID()];
    await addEndpoint(withEndpoint);
    const event = randomUUID();
    expect(await deliveries.insertMany([newDelivery(event, without), newDelivery(event, withEndpoint)])).toEqual([
      'no_endpoint',
      'pending',
    ]);
    expect(await rowsOf(without)).toEqual([{ event_id: event, status: 'no_endpoint', endpoint_url: null }]);
  });

  it('keeps one delivery per event when two replicas insert overlapping batches at once', async () => {
    const partnerId = randomUUID();
    await addEndpoint(partnerId);
    const events = Array.from({ length: 200 }, () => randomUUID());
    const replicaA = deliveries.insertMany(events.map((event) => newDelivery(event, partnerId)));
    const replicaB = new DeliveriesRepository(db).insertMany(
      [...events].reverse().map((event) => newDelivery(event, partnerId)),
    );
    const [outcomesA, outcomesB] = await Promise.all([replicaA, replicaB]);
    const created = [...outcomesA, ...outcomesB].filter((outcome) => outcome === 'pending');
    expect(created).toHaveLength(events.length);
    expect(await rowsOf(partnerId)).toHaveLength(events.length);
  });
});

/** Claims take due rows of any partner: start each claiming test with none left from the others. */
async function clearDue(): Promise<void> {
  await db.query(
    "UPDATE webhook_deliveries SET status = 'dead', next_attempt_at = NULL, lease_id = NULL WHERE status IN ('pending', 'delivering')",
  );
}

describe('claimDue', () => {
  beforeEach(clearDue);

  it('hands each due row to exactly one of several concurrent claimers', async () => {
    const partnerId = randomUUID();
    await addEndpoint(partnerId);
    await deliveries.insertMany(Array.from({ length: 40 }, () => newDelivery(randomUUID(), partnerId)));
    const claims = await Promise.all(
      Array.from({ length: 4 }, () => deliveries.claimDue({ limit: 50, endpointInFlightMax: 100, leaseMs: LEASE_MS })),
    );
    const claimed = claims.flat().filter((delivery) => delivery.partnerId === partnerId);
    expect(claimed).toHaveLength(40);
    expect(new Set(claimed.map((delivery) => delivery.deliveryId)).size).toBe(40);
  });

  it('never takes an endpoint past its in-flight cap, and reads the endpoint in the same statement', async () => {
    const [capped, free] = [randomUUID(), randomUUID()];
    await addEndpoint(capped);
    await addEndpoint(free);
    await deliveries.insertMany([
      ...Array.from({ length: 10 }, () => newDelivery(randomUUID(), capped)),
      ...Array.from({ length: 3 }, () => newDelivery(randomUUID(), free)),
    ]);
    const claim = async () =>
      (await deliveries.claimDue({ limit: 50, endpointInFlightMax: 4, leaseMs: LEASE_MS })).filter(
        (delivery) => delivery.partnerId === capped || delivery.partnerId === free,
      );
    const first = await claim();
    expect(first.filter((delivery) => delivery.partnerId === capped)).toHaveLength(4);
    expect(first.filter((delivery) => delivery.partnerId === free)).toHaveLength(3);
    expect(
      first.every(
        (delivery) =>
          delivery.endpoint?.url === `https://hooks.example.com/${delivery.partnerId}` &&
          delivery.endpoint.secretSealed === 'sealed',
      ),
    ).toBe(true);
    // At the cap, nothing more of that endpoint is claimed until a slot frees.
    expect(await claim()).toHaveLength(0);
  });
});

describe('recordAttempts', () => {
  beforeEach(clearDue);

  async function claimAll(partnerId: string, count: number): Promise<ClaimedDelivery[]> {
    await deliveries.insertMany(Array.from({ length: count }, () => newDelivery(randomUUID(), partnerId)));
    return (await deliveries.claimDue({ limit: 500, endpointInFlightMax: 100, leaseMs: LEASE_MS })).filter(
      (delivery) => delivery.partnerId === partnerId,
    );
  }

  const recording = (claimed: ClaimedDelivery, success: boolean): AttemptRecording => ({
    claimed,
    attempt: {
      attemptId: randomUUID(),
      attemptNumber: claimed.attemptCount + 1,
      startedAt: new Date(),
      latencyMs: 21,
      statusCode: success ? 200 : 500,
      errorClass: success ? null : 'http_status',
      responseExcerpt: success ? 'ok' : 'boom',
    },
    next: success ? { status: 'delivered' } : { status: 'pending', delayMs: 30_000 },
  });

  async function consecutiveFailures(partnerId: string): Promise<number> {
    const [row] = (await db.query('SELECT consecutive_failures FROM endpoints WHERE partner_id = $1', [
      partnerId,
    ])) as Array<{ consecutive_failures: number }>;
    return row?.consecutive_failures ?? -1;
  }

  it('moves on only deliveries whose lease is held and keeps every attempt', async () => {
    const partnerId = randomUUID();
    await addEndpoint(partnerId);
    const [kept, lost] = await claimAll(partnerId, 2);
    if (!kept || !lost) throw new Error('expected two claimed deliveries');
    // Another replica took `lost` over after its lease ran out.
    await db.query(`UPDATE webhook_deliveries SET lease_id = gen_random_uuid() WHERE delivery_id = $1`, [
      lost.deliveryId,
    ]);
    const batch = await deliveries.recordAttempts([recording(kept, true), recording(lost, true)]);
    expect(batch.leaseHeld).toEqual([true, false]);
    const statuses = (await db.query(
      'SELECT delivery_id, status, attempt_count FROM webhook_deliveries WHERE partner_id = $1',
      [partnerId],
    )) as Array<{ delivery_id: string; status: string; attempt_count: number }>;
    expect(statuses.find((row) => row.delivery_id === kept.deliveryId)).toMatchObject({
      status: 'delivered',
      attempt_count: 1,
    });
    expect(statuses.find((row) => row.delivery_id === lost.deliveryId)).toMatchObject({
      status: 'delivering',
      attempt_count: 0,
    });
    const [{ count }] = (await db.query(
      'SELECT count(*)::int AS count FROM webhook_delivery_attempts WHERE delivery_id = ANY($1::uuid[])',
      [[kept.deliveryId, lost.deliveryId]],
    )) as Array<{ count: number }>;
    expect(count).toBe(2);
  });

  it('counts the endpoint run of failures as attempts one at a time would', async () => {
    const partnerId = randomUUID();
    await addEndpoint(partnerId);
    const claimed = await claimAll(partnerId, 6);
    // fail, fail, succeed, fail, fail: the run restarts at the success, two failures after it.
    const first = await deliveries.recordAttempts(
      [false, false, true, false, false].map((success, index) => recording(claimed[index]!, success)),
    );
    expect(await consecutiveFailures(partnerId)).toBe(2);
    expect(first.failureRuns).toEqual([{ partnerId, consecutiveFailures: 2, from: 1 }]);
    // Another failure only: the run grows from 2 to 3.
    const second = await deliveries.recordAttempts([recording(claimed[5]!, false)]);
    expect(await consecutiveFailures(partnerId)).toBe(3);
    expect(second.failureRuns).toEqual([{ partnerId, consecutiveFailures: 3, from: 3 }]);
  });

  it('writes no endpoint row when a batch of successes leaves its run at zero', async () => {
    const partnerId = randomUUID();
    await addEndpoint(partnerId);
    const claimed = await claimAll(partnerId, 2);
    const batch = await deliveries.recordAttempts(claimed.map((delivery) => recording(delivery, true)));
    expect(batch.failureRuns).toEqual([]);
    expect(await consecutiveFailures(partnerId)).toBe(0);
  });
});
