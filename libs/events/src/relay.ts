/**
 * The outbox relay: publishes unpublished outbox rows to RabbitMQ with
 * publisher confirms and marks them published only after the broker has
 * confirmed them and routed them to at least one queue (`mandatory`), so an
 * event published before any consumer queue exists stays in the outbox
 * instead of vanishing. Rows are claimed with FOR UPDATE SKIP LOCKED, so any
 * number of replicas can relay at once. Delivery is at least once: a crash
 * between confirm and mark re-publishes, and consumers dedupe on event id.
 * A message carries the W3C `traceparent` header of the span its event was
 * written in, so the consumer continues that trace.
 *
 * This is also the producing side of reconciliation (an event is sent late, never lost): a row whose
 * publish was lost (broker down, no confirm, unroutable) simply stays
 * unpublished and is published again on a later pass. The relay watches its
 * own lag: when the oldest unpublished row is older than `lagAlertMs` it logs a
 * structured alert (`alert: 'outbox_publish_lag'`) at most every
 * `lagCheckIntervalMs`, whether or not the broker answers.
 *
 * Batches: one pass claims up to `batchSize` rows, publishes them all and waits
 * for the broker's confirms once, then commits. The claim marks the rows
 * published in the statement that locks and returns them (`UPDATE … RETURNING`
 * along the partial index of unpublished rows), inside the pass's transaction:
 * the mark becomes visible only with the commit that follows the confirms, and a
 * failed pass (or a relay that dies before its commit) rolls the mark back with
 * the locks, so a row is published as before and no later. A pass is three
 * round trips (BEGIN, the claim, COMMIT) and one commit; rows the broker could
 * not route are put back unpublished by one more statement before the commit.
 * The claim and the idle poll run as named prepared statements (parsed and
 * planned once per connection).
 *
 * A kick (a transaction that enqueued events committed) that arrives while a pass runs
 * is kept, so the next pass starts as soon as it may and takes everything
 * committed meanwhile. Passes begin at least `passSpacingMsMin` apart: a pass is
 * a commit whatever it carries, so under a steady stream of kicks (every order
 * step kicks) the spacing, not the event rate, bounds the relay's commits, and
 * each pass carries what the spacing gathered; after a quiet spell a kick is
 * served at once. A poll that nobody kicked first asks whether anything waits
 * (one indexed query, no transaction); a kicked pass, or the one after a full
 * batch, goes straight to its transaction, since rows almost surely wait. If any
 * confirm of a pass fails (a nack, a timeout, a closed channel), the whole pass
 * rolls back and its rows are published again, with the same message ids, on
 * the next pass; consumers dedupe on the event id.
 *
 * Why the relay is not on the shared claim/lease/drain primitive
 * (@platform/persistence DurableScheduler): its claim is not a lease. A batch's
 * rows stay locked by one open transaction across the broker's publisher
 * confirms and are marked published in that same transaction, so a failed or
 * unconfirmed batch is given back by rolling back, and no replica can ever hold
 * a row past its own crash (a lease would leave such rows unpublished until it
 * ran out). Its loop has the same shape as the primitive's WorkLoop: one pass at
 * a time, at once after a full batch or a kick, the poll interval otherwise, a
 * fixed backoff after a failed pass that kicks do not cut short, and stop()
 * waiting for the batch in flight (bounded by the caller, RELAY_DRAIN_MS_MAX in
 * each service's main). It has no readiness gate of its own: the broker's
 * connection state is checked first and bounded, before any row is locked.
 *
 * Metrics (relay-metrics.ts): the backlog (unpublished rows, age of the oldest)
 * measured at each scrape while the relay runs, so it shows even when the relay
 * itself is stuck; the time each batch took to publish and be confirmed; events
 * published; failed passes.
 */
import type { ConfirmChannel, Message } from 'amqplib';
import type { DataSource } from 'typeorm';
import type { Logger } from '@platform/logger';
import { queryPrepared, queryPreparedIn } from '@platform/persistence';
import { TRACEPARENT } from '@platform/tracing';
import { AmqpConnection, assertPartnerEventsExchange } from './amqp';
import { BusEvent, PARTNER_EVENTS_EXCHANGE } from './catalogue';
import { RelayMetrics } from './relay-metrics';

export interface RelayOptions {
  /** Rows claimed per transaction. */
  batchSize?: number;
  /** How often to look for rows when nobody kicked the relay. */
  pollIntervalMs?: number;
  /** Least time between the starts of two passes (each pass is one commit), however often kicked. */
  passSpacingMsMin?: number;
  /** Upper bound on waiting for broker confirms of one batch. */
  confirmTimeoutMs?: number;
  /** Oldest unpublished row older than this raises the lag alert. */
  lagAlertMs?: number;
  /** How often the lag is measured. */
  lagCheckIntervalMs?: number;
  /** Where the relay's metrics go; the process's registry unless a test gives its own. */
  metrics?: RelayMetrics;
}

/** The outbox's backlog at one measurement. */
export interface OutboxLag {
  /** Counted up to OUTBOX_COUNTED_MAX: beyond that the exact number changes nothing. */
  unpublished: number;
  /** Age of the oldest unpublished row, 0 when there is none. */
  oldestAgeMs: number;
}

const BATCH_SIZE_DEFAULT = 100;
const POLL_INTERVAL_MS_DEFAULT = 200;
/**
 * 25 ms: at most 40 passes (commits) a second under any event rate, and an
 * event waits at most that long behind the previous pass; 300 events a second
 * go out about 8 to a pass.
 */
export const PASS_SPACING_MS_MIN_DEFAULT = 25;
const CONFIRM_TIMEOUT_MS_DEFAULT = 5_000;
const ERROR_BACKOFF_MS = 1_000;
const LAG_ALERT_MS_DEFAULT = 30_000;
const LAG_CHECK_INTERVAL_MS_DEFAULT = 10_000;
/** Unpublished rows counted at most by one lag measurement, so it stays cheap whatever the backlog. */
export const OUTBOX_COUNTED_MAX = 100_000;

/**
 * The claim: up to `batchSize` unpublished rows, oldest first, locked (rows
 * another relay holds are skipped), marked published and returned in creation
 * order. The locked ids are handed to the UPDATE as an array (`= ANY(ARRAY(…))`,
 * computed once before it), so the rows are found by primary key whatever the
 * table's size: joined to the sub-select instead, the planner may read the
 * whole table to hash-join a batch it expects to be large. The batch size is
 * written into the text (a whole number checked at construction) so that no
 * parameter is left for a generic plan to guess at.
 */
export function outboxClaimSql(batchSize: number): string {
  return `WITH marked AS (
    UPDATE outbox SET published_at = now(), publish_attempts = publish_attempts + 1
    WHERE id = ANY(ARRAY(
      SELECT id FROM outbox WHERE published_at IS NULL ORDER BY created_at LIMIT ${batchSize} FOR UPDATE SKIP LOCKED
    ))
    RETURNING id, payload, traceparent, created_at
  )
  SELECT id, payload, traceparent FROM marked ORDER BY created_at`;
}

/** The claim's rows the broker could not route: unpublished again, the attempt (counted by the claim) kept with its error. */
const OUTBOX_UNROUTABLE_SQL =
  "UPDATE outbox SET published_at = NULL, last_error = 'unroutable' WHERE id = ANY($1::uuid[])";

const OUTBOX_ANY_UNPUBLISHED_SQL = 'SELECT 1 FROM outbox WHERE published_at IS NULL LIMIT 1';

interface OutboxRow {
  id: string;
  payload: BusEvent;
  traceparent: string | null;
}

export class OutboxRelay {
  private channel: ConfirmChannel | null = null;
  private running = false;
  private wake: (() => void) | null = null;
  /** A kick arrived since the last pass began: the next idle returns at once. */
  private kicked = false;
  /** False while backing off after a failure: kicks do not cut that wait short. */
  private wakeOnKick = true;
  private loop: Promise<void> | null = null;
  private readonly returned = new Set<string>();
  private lastBatchUnroutable = false;
  /** The last pass was full: rows almost surely wait, so the next pass skips asking. */
  private lastBatchFull = false;
  private lastPassStartedMs = 0;
  private readonly batchSize: number;
  private readonly claimSql: string;
  private readonly pollIntervalMs: number;
  private readonly passSpacingMsMin: number;
  private readonly confirmTimeoutMs: number;
  private readonly lagAlertMs: number;
  private readonly lagCheckIntervalMs: number;
  private nextLagCheckMs = 0;
  private readonly metrics: RelayMetrics;
  private stopMeasuring: (() => void) | null = null;

  constructor(
    private readonly dataSource: DataSource,
    private readonly amqp: AmqpConnection,
    private readonly logger: Logger,
    options: RelayOptions = {},
  ) {
    this.batchSize = options.batchSize ?? BATCH_SIZE_DEFAULT;
    if (!Number.isSafeInteger(this.batchSize) || this.batchSize < 1)
      throw new Error(`the relay's batch size is a positive whole number, not ${this.batchSize}`);
    this.claimSql = outboxClaimSql(this.batchSize);
    this.pollIntervalMs = options.pollIntervalMs ?? POLL_INTERVAL_MS_DEFAULT;
    this.passSpacingMsMin = options.passSpacingMsMin ?? PASS_SPACING_MS_MIN_DEFAULT;
    this.confirmTimeoutMs = options.confirmTimeoutMs ?? CONFIRM_TIMEOUT_MS_DEFAULT;
    this.lagAlertMs = options.lagAlertMs ?? LAG_ALERT_MS_DEFAULT;
    this.lagCheckIntervalMs = options.lagCheckIntervalMs ?? LAG_CHECK_INTERVAL_MS_DEFAULT;
    this.metrics = options.metrics ?? new RelayMetrics();
    this.amqp.on('disconnected', () => (this.channel = null));
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.stopMeasuring = this.metrics.watchBacklog(() => this.measureLag());
    this.loop = this.run();
  }

  /** Asks the relay to look now (call after committing a transaction that enqueued events). */
  kick(): void {
    this.kicked = true;
    if (this.wakeOnKick) this.wake?.();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.stopMeasuring?.();
    this.wake?.();
    await this.loop;
    await this.channel?.close().catch(() => undefined);
    this.channel = null;
  }

  private async run(): Promise<void> {
    while (this.running) {
      await this.watchLag();
      await this.keepPassSpacing();
      if (!this.running) break;
      try {
        const published = await this.publishBatch();
        if (published >= this.batchSize) continue;
        // Events nobody can receive yet are retried slowly rather than in a tight loop.
        await this.idle(this.lastBatchUnroutable ? ERROR_BACKOFF_MS : this.pollIntervalMs);
      } catch (error) {
        this.channel = null;
        this.metrics.batchFailed();
        this.logger.warn('outbox relay batch failed; will retry', { error: (error as Error).message });
        // A failure waits its backoff whatever kicks arrive, so a broken broker or database is not hammered.
        await this.idle(ERROR_BACKOFF_MS, false);
      }
    }
  }

  /**
   * Measures the backlog: how many rows wait (up to OUTBOX_COUNTED_MAX) and how
   * old the oldest is. The partial index on unpublished rows serves it in order.
   */
  async measureLag(): Promise<OutboxLag> {
    const [row] = (await this.dataSource.query(
      `SELECT count(*)::int AS unpublished,
              COALESCE(floor(extract(epoch FROM now() - min(created_at)) * 1000), 0)::bigint AS oldest_age_ms
       FROM (SELECT created_at FROM outbox WHERE published_at IS NULL ORDER BY created_at LIMIT $1) unpublished`,
      [OUTBOX_COUNTED_MAX],
    )) as Array<{ unpublished: number; oldest_age_ms: string }>;
    return { unpublished: row?.unpublished ?? 0, oldestAgeMs: Number(row?.oldest_age_ms ?? 0) };
  }

  private async watchLag(): Promise<void> {
    if (Date.now() < this.nextLagCheckMs) return;
    this.nextLagCheckMs = Date.now() + this.lagCheckIntervalMs;
    try {
      const lag = await this.measureLag();
      if (lag.oldestAgeMs > this.lagAlertMs) {
        this.logger.warn('outbox events waiting to be published longer than the lag threshold', {
          alert: 'outbox_publish_lag',
          unpublished: lag.unpublished,
          oldestAgeMs: lag.oldestAgeMs,
          thresholdMs: this.lagAlertMs,
        });
      }
    } catch (error) {
      this.logger.warn('outbox lag check failed', { error: (error as Error).message });
    }
  }

  /** Waits until `passSpacingMsMin` has passed since the previous pass began (stop ends the wait, kicks do not). */
  private async keepPassSpacing(): Promise<void> {
    const waitMs = this.lastPassStartedMs + this.passSpacingMsMin - Date.now();
    if (waitMs > 0) await this.idle(waitMs, false);
    this.lastPassStartedMs = Date.now();
  }

  private idle(ms: number, endsOnKick = true): Promise<void> {
    if (!this.running || (endsOnKick && this.kicked)) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
        this.wakeOnKick = true;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
      this.wakeOnKick = endsOnKick;
    });
  }

  private async ensureChannel(): Promise<ConfirmChannel> {
    if (this.channel) return this.channel;
    const channel = await this.amqp.createConfirmChannel();
    await assertPartnerEventsExchange(channel);
    channel.on('return', (message: Message) => {
      if (message.properties.messageId) this.returned.add(String(message.properties.messageId));
    });
    channel.on('close', () => {
      if (this.channel === channel) this.channel = null;
    });
    this.channel = channel;
    return channel;
  }

  /** True when some row waits to be published (the partial index on unpublished rows answers it). */
  private async anyUnpublished(): Promise<boolean> {
    const rows = await queryPrepared<unknown>(
      this.dataSource,
      'outbox_any_unpublished',
      OUTBOX_ANY_UNPUBLISHED_SQL,
      [],
    );
    return rows.length > 0;
  }

  /** Publishes one batch; returns how many rows were marked published. */
  async publishBatch(): Promise<number> {
    const rowsExpected = this.kicked || this.lastBatchFull;
    this.kicked = false;
    this.lastBatchFull = false;
    // Nothing waiting (the common idle poll): one indexed query, no transaction, no broker.
    if (!rowsExpected && !(await this.anyUnpublished())) {
      this.lastBatchUnroutable = false;
      return 0;
    }
    // The channel comes first, bounded: a transaction holding row locks must never wait on the broker.
    const channel = await withTimeout(this.ensureChannel(), this.confirmTimeoutMs, 'broker connection');
    return this.dataSource
      .transaction(async (manager) => {
        const rows = await queryPreparedIn<OutboxRow>(manager, 'outbox_claim', this.claimSql, []);
        this.lastBatchUnroutable = false;
        if (rows.length === 0) return 0;
        for (const row of rows) this.returned.delete(row.id);
        const publishedAt = performance.now();
        for (const row of rows) {
          channel.publish(PARTNER_EVENTS_EXCHANGE, row.payload.type, Buffer.from(JSON.stringify(row.payload)), {
            persistent: true,
            mandatory: true,
            messageId: row.id,
            type: row.payload.type,
            contentType: 'application/json',
            timestamp: Math.floor(Date.now() / 1000),
            headers: messageHeaders(row),
          });
        }
        await withTimeout(channel.waitForConfirms(), this.confirmTimeoutMs, 'publisher confirms');
        this.metrics.batchConfirmed(performance.now() - publishedAt);
        const unroutable = rows.filter((row) => this.returned.has(row.id)).map((row) => row.id);
        this.lastBatchUnroutable = unroutable.length > 0;
        if (unroutable.length > 0) {
          this.logger.warn('outbox events unroutable (no consumer queue bound yet); kept for retry', {
            count: unroutable.length,
          });
          await manager.query(OUTBOX_UNROUTABLE_SQL, [unroutable]);
        }
        return rows.length - unroutable.length;
      })
      .then((published) => {
        this.lastBatchFull = published >= this.batchSize;
        this.metrics.eventsPublished(published);
        return published;
      });
  }
}

/** The partner, and the trace context the event was written in (W3C `traceparent`), when there was one. */
function messageHeaders(row: OutboxRow): Record<string, string> {
  const headers: Record<string, string> = { 'partner-id': row.payload.partnerId };
  if (row.traceparent) headers[TRACEPARENT] = row.traceparent;
  return headers;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
