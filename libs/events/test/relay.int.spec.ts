// Proves the outbox relay's batches against real PostgreSQL (a scratch database
// with the outbox table) and a fake confirm channel standing in for RabbitMQ:
// one pass publishes every claimed row and waits for confirms once, marking
// them all in one commit; a pass whose confirm fails is rolled back and its
// rows are published again, with the same message ids, by the next pass, and
// marked only once confirmed; a kick that arrives while a pass runs is not
// lost (rows committed meanwhile go out without waiting for the poll); a stream
// of kicks is served by passes at least the spacing apart, each carrying what
// the spacing gathered, while a lone kick after a quiet spell is served at once; two
// relays at once never publish the same row in the same pass; a running relay
// reports its backlog at scrape (even while its pass is stuck) and what it published;
// a message carries the traceparent its event was written in (none outside a span).
// The claim marks its rows published in the pass's own transaction, so: rows the
// broker could not route are left unpublished with the attempt and its error; a
// relay whose database connection dies while it waits for confirms (a crash between
// publish and mark) leaves its rows unpublished for the next pass; a batch goes
// out in the order its events were created; and the claim finds its rows by index
// however many published rows the table keeps (no sequential read of the outbox).
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createLogger } from '@platform/logger';
import { Registry } from '@platform/metrics';
import { createDataSource, DataSource } from '@platform/persistence';
import { createScratchDatabase, ScratchDatabase, waitFor } from '@platform/testing';
import { contextFromTraceparent, inSpan, SpanKind, startTracing } from '@platform/tracing';
import type { AmqpConnection } from '../src/amqp';
import { enqueueEvent, OUTBOX_TABLE_V1_SQL, OUTBOX_TRACEPARENT_V2_SQL } from '../src/outbox';
import { OutboxRelay, outboxClaimSql } from '../src/relay';
import { RelayMetrics } from '../src/relay-metrics';

const logger = createLogger('relay-spec', 'error');
const POLL_NEVER_MS = 60_000;

/** A confirm channel that records publishes; `failNextConfirms` makes the next waitForConfirms reject (a nack). */
class FakeConfirmChannel extends EventEmitter {
  published: string[] = [];
  headers = new Map<string, Record<string, unknown>>();
  confirmWaits = 0;
  failNextConfirms = 0;
  /** While set, waitForConfirms waits for it: a pass held in the middle. */
  gate: Promise<void> | null = null;
  async assertExchange(): Promise<void> {}
  /** Message ids the broker returns as unroutable (no queue bound), as RabbitMQ does for `mandatory`. */
  unroutable = new Set<string>();
  publish(
    _exchange: string,
    _key: string,
    _content: Buffer,
    options: { messageId: string; headers: Record<string, unknown> },
  ): boolean {
    this.published.push(options.messageId);
    this.headers.set(options.messageId, options.headers);
    if (this.unroutable.has(options.messageId)) this.emit('return', { properties: { messageId: options.messageId } });
    return true;
  }
  async waitForConfirms(): Promise<void> {
    this.confirmWaits += 1;
    if (this.gate) await this.gate;
    if (this.failNextConfirms > 0) {
      this.failNextConfirms -= 1;
      throw new Error('message nacked');
    }
  }
  async close(): Promise<void> {}
}

let scratch: ScratchDatabase;
let db: DataSource;

beforeAll(async () => {
  scratch = await createScratchDatabase('relay_batches');
  db = await createDataSource({ url: scratch.url, applicationName: 'relay-spec' }).initialize();
  await db.query(OUTBOX_TABLE_V1_SQL);
  await db.query(OUTBOX_TRACEPARENT_V2_SQL);
});

afterAll(async () => {
  await db?.destroy();
  await scratch?.drop();
});

beforeEach(async () => {
  await db.query('DELETE FROM outbox');
});

function relayWith(
  channel: FakeConfirmChannel,
  options: { batchSize?: number; metrics?: RelayMetrics; passSpacingMsMin?: number } = {},
): OutboxRelay {
  const amqp = Object.assign(new EventEmitter(), {
    createConfirmChannel: async () => channel,
  }) as unknown as AmqpConnection;
  return new OutboxRelay(db, amqp, logger, { pollIntervalMs: POLL_NEVER_MS, confirmTimeoutMs: 5_000, ...options });
}

async function enqueue(
  count: number,
  createdAt: (index: number) => Date | undefined = () => undefined,
): Promise<string[]> {
  const ids: string[] = [];
  await db.transaction(async (manager) => {
    for (let index = 0; index < count; index += 1) {
      const event = {
        partnerId: randomUUID(),
        type: 'credit.received' as const,
        data: { index },
        createdAt: createdAt(index),
      };
      ids.push((await enqueueEvent(manager, event)).id);
    }
  });
  return ids;
}

async function unpublished(): Promise<number> {
  const [row] = (await db.query('SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL')) as Array<{
    n: number;
  }>;
  return row?.n ?? -1;
}

it('publishes a whole batch, waits for confirms once, and marks every row', async () => {
  const channel = new FakeConfirmChannel();
  const ids = await enqueue(50);
  expect(await relayWith(channel).publishBatch()).toBe(50);
  expect(channel.published.sort()).toEqual([...ids].sort());
  expect(channel.confirmWaits).toBe(1);
  expect(await unpublished()).toBe(0);
});

it('republishes the whole batch, with the same message ids, when its confirm failed', async () => {
  const channel = new FakeConfirmChannel();
  const ids = await enqueue(20);
  const relay = relayWith(channel);
  channel.failNextConfirms = 1;
  await expect(relay.publishBatch()).rejects.toThrow(/nacked/);
  expect(await unpublished()).toBe(20);
  expect(await relay.publishBatch()).toBe(20);
  expect(channel.published).toHaveLength(40);
  expect(channel.published.slice(20).sort()).toEqual([...ids].sort());
  expect(await unpublished()).toBe(0);
  const [row] = (await db.query(
    'SELECT min(publish_attempts)::int AS least, max(publish_attempts)::int AS most FROM outbox',
  )) as Array<{ least: number; most: number }>;
  expect(row).toEqual({ least: 1, most: 1 });
});

it('keeps a kick that arrives while a pass runs: rows committed meanwhile go out without waiting for the poll', async () => {
  const channel = new FakeConfirmChannel();
  const relay = relayWith(channel);
  await enqueue(1);
  let release: () => void = () => undefined;
  channel.gate = new Promise((resolve) => {
    release = resolve;
  });
  relay.start();
  try {
    await waitFor(() => channel.confirmWaits === 1, {
      timeoutMs: 5_000,
      what: 'the first pass to wait for its confirm',
    });
    const late = await enqueue(3);
    relay.kick();
    channel.gate = null;
    release();
    await waitFor(async () => (await unpublished()) === 0, {
      timeoutMs: 5_000,
      what: 'the late rows to be published (the poll is 60 s away)',
    });
    expect(channel.published.slice(1).sort()).toEqual([...late].sort());
  } finally {
    await relay.stop();
  }
});

it('serves a stream of kicks with passes at least the spacing apart, and a lone kick after quiet at once', async () => {
  const channel = new FakeConfirmChannel();
  const spacingMs = 400;
  const relay = relayWith(channel, { passSpacingMsMin: spacingMs });
  relay.start();
  try {
    // The first pass (at start) finds nothing; a kick after the spacing is served without waiting.
    await new Promise((resolve) => setTimeout(resolve, spacingMs + 50));
    const lone = await enqueue(1);
    const kickedAtMs = Date.now();
    relay.kick();
    await waitFor(async () => (await unpublished()) === 0, { timeoutMs: 5_000, what: 'the lone event' });
    expect(Date.now() - kickedAtMs).toBeLessThan(spacingMs);
    expect(channel.published).toEqual(lone);
    // Ten events kicked one by one 20 ms apart: the passes are spaced, so they share few passes.
    const passesBefore = channel.confirmWaits;
    const stream: string[] = [];
    for (let index = 0; index < 10; index += 1) {
      stream.push(...(await enqueue(1)));
      relay.kick();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await waitFor(async () => (await unpublished()) === 0, { timeoutMs: 5_000, what: 'the stream of events' });
    expect(channel.published.slice(1).sort()).toEqual([...stream].sort());
    // 10 events over ≥ 200 ms with passes ≥ 400 ms apart: two or three passes, never one per event.
    expect(channel.confirmWaits - passesBefore).toBeLessThanOrEqual(3);
  } finally {
    await relay.stop();
  }
});

it('never lets two relays publish the same row in the same pass', async () => {
  const [first, second] = [new FakeConfirmChannel(), new FakeConfirmChannel()];
  await enqueue(200);
  const results = await Promise.all([
    relayWith(first, { batchSize: 150 }).publishBatch(),
    relayWith(second, { batchSize: 150 }).publishBatch(),
  ]);
  const overlap = first.published.filter((id) => second.published.includes(id));
  expect(overlap).toEqual([]);
  expect(results[0] + results[1]).toBe(first.published.length + second.published.length);
  expect(first.published.length + second.published.length).toBeLessThanOrEqual(200);
});

it('reports its backlog at scrape while a pass is stuck, then the batch it published', async () => {
  const registry = new Registry();
  const channel = new FakeConfirmChannel();
  const relay = relayWith(channel, { metrics: new RelayMetrics(registry) });
  await enqueue(5);
  let release: () => void = () => undefined;
  channel.gate = new Promise((resolve) => {
    release = resolve;
  });
  relay.start();
  try {
    await waitFor(() => channel.confirmWaits === 1, { timeoutMs: 5_000, what: 'the pass to wait for its confirm' });
    const stuck = await registry.metrics();
    expect(stuck).toMatch(/^outbox_unpublished_events 5$/m);
    expect(Number(/^outbox_oldest_unpublished_age_seconds (\S+)$/m.exec(stuck)?.[1])).toBeGreaterThanOrEqual(0);
    channel.gate = null;
    release();
    await waitFor(async () => (await unpublished()) === 0, {
      timeoutMs: 5_000,
      what: 'the batch to be marked published',
    });
    const done = await registry.metrics();
    expect(done).toMatch(/^outbox_unpublished_events 0$/m);
    expect(done).toMatch(/^outbox_oldest_unpublished_age_seconds 0$/m);
    expect(done).toMatch(/^outbox_events_published_total 5$/m);
    expect(done).toMatch(/^outbox_relay_publish_seconds_count 1$/m);
  } finally {
    await relay.stop();
  }
  expect(await registry.metrics()).not.toMatch(/^outbox_unpublished_events /m);
});

it('publishes each event with the traceparent it was written in, and none for one written outside a span', async () => {
  startTracing({ service: 'relay-spec' });
  const partnerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
  const [traced] = await inSpan(
    'request',
    { kind: SpanKind.SERVER, parent: contextFromTraceparent(`00-${partnerTrace}-00f067aa0ba902b7-01`) },
    () => enqueue(1),
  );
  const [untraced] = await enqueue(1);
  const channel = new FakeConfirmChannel();
  expect(await relayWith(channel).publishBatch()).toBe(2);
  expect(channel.headers.get(traced)?.traceparent).toMatch(new RegExp(`^00-${partnerTrace}-[0-9a-f]{16}-0[01]$`));
  expect(channel.headers.get(untraced)).toEqual({ 'partner-id': expect.any(String) });
});

it('leaves the rows the broker could not route unpublished, with the attempt and its error, and marks the rest', async () => {
  const channel = new FakeConfirmChannel();
  const ids = await enqueue(6);
  const unroutable = ids.slice(0, 2);
  for (const id of unroutable) channel.unroutable.add(id);
  expect(await relayWith(channel).publishBatch()).toBe(4);
  const rows = (await db.query(
    'SELECT id, published_at IS NOT NULL AS published, publish_attempts, last_error FROM outbox ORDER BY id',
  )) as Array<{ id: string; published: boolean; publish_attempts: number; last_error: string | null }>;
  for (const row of rows) {
    const routed = !unroutable.includes(row.id);
    expect(row).toEqual({
      id: row.id,
      published: routed,
      publish_attempts: 1,
      last_error: routed ? null : 'unroutable',
    });
  }
});

it('leaves its rows unpublished when its database connection dies while it waits for confirms', async () => {
  const channel = new FakeConfirmChannel();
  const ids = await enqueue(5);
  let release: () => void = () => undefined;
  channel.gate = new Promise((resolve) => {
    release = resolve;
  });
  const pass = relayWith(channel).publishBatch();
  await waitFor(() => channel.confirmWaits === 1, { timeoutMs: 5_000, what: 'the pass to wait for its confirm' });
  // The claim has marked the rows in the open transaction; the process holding it dies (its backend goes).
  const [killed] = (await db.query(
    "SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction'",
  )) as Array<{ n: number }>;
  expect(killed?.n).toBe(1);
  channel.gate = null;
  release();
  await expect(pass).rejects.toThrow();
  expect(await unpublished()).toBe(5);
  const next = new FakeConfirmChannel();
  expect(await relayWith(next).publishBatch()).toBe(5);
  expect(next.published.sort()).toEqual([...ids].sort());
});

it('publishes a batch in the order its events were created', async () => {
  const channel = new FakeConfirmChannel();
  const baseMs = Date.parse('2026-11-27T10:00:00.000Z');
  // Written newest first: the creation times, not the order of the writes, decide.
  const ids = await enqueue(8, (index) => new Date(baseMs - index * 1_000));
  expect(await relayWith(channel).publishBatch()).toBe(8);
  expect(channel.published).toEqual([...ids].reverse());
});

it('claims along the indexes, not by reading the whole outbox, however many published rows it keeps', async () => {
  await db.query(
    `INSERT INTO outbox (id, partner_id, type, payload, created_at, published_at, publish_attempts)
     SELECT gen_random_uuid(), gen_random_uuid(), 'credit.received', '{}', now() - g * interval '1 second', now(), 1
     FROM generate_series(1, 20000) AS g`,
  );
  await enqueue(3);
  await db.query('ANALYZE outbox');
  const [{ 'QUERY PLAN': plan }] = (await db.query(`EXPLAIN (FORMAT JSON) ${outboxClaimSql(100)}`)) as Array<{
    'QUERY PLAN': unknown;
  }>;
  const scans: string[] = [];
  const walk = (node: { 'Node Type'?: string; 'Relation Name'?: string; Plans?: unknown[] }) => {
    if (node['Relation Name'] === 'outbox') scans.push(node['Node Type'] ?? '');
    for (const child of node.Plans ?? []) walk(child as typeof node);
  };
  walk((plan as Array<{ Plan: Parameters<typeof walk>[0] }>)[0]!.Plan);
  expect(scans.length).toBeGreaterThan(0);
  expect(scans).not.toContain('Seq Scan');
});
