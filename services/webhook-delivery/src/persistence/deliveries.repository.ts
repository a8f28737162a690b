/**
 * Deliveries and their attempts. The row is the retry timer: `next_attempt_at`
 * says when a pending delivery is due, and any replica claims due rows with
 * FOR UPDATE SKIP LOCKED, so replicas never take the same row at once and no
 * in-process timer is needed. A claimed row is `delivering` under a lease
 * (`next_attempt_at` = lease end, `lease_id`); if its replica dies, the lease
 * runs out and the row is reclaimed with the same delivery id.
 *
 * The hot statements each serve a whole batch in one round trip and one
 * commit: events accepted from the bus (insertMany), due deliveries claimed
 * (claimDue, with their endpoints), finished attempts recorded (recordAttempts).
 * Each runs as a named prepared statement on the pool: planned afresh, each
 * cost more than it ran (it plans every weekly partition; the claim's function
 * keeps its own plan the same way), and no parameter of theirs picks an index or a partition
 * at plan time (the partitions are pruned, if at all, by the joined values as
 * the statement runs), so the generic plan is the custom one. Creating or
 * dropping a week invalidates the plan and the next run plans again.
 */
import { createMissingWeeks, queryPrepared, weekPartitionName } from '@platform/persistence';
import type { DataSource, DueRows, EntityManager } from '@platform/persistence';
import type { ErrorClass } from '../domain/attempt-outcome';
import type { DeliveryStatus } from '../domain/delivery-status';
import type { EndpointRecord } from './endpoints.repository';

export type { DeliveryStatus };

/** Statuses an operator replay re-opens; `pending` and `delivering` are already open. */
export const REPLAYABLE_STATUSES: readonly DeliveryStatus[] = ['dead', 'delivered', 'no_endpoint'];

export interface NewDelivery {
  deliveryId: string;
  eventId: string;
  partnerId: string;
  eventType: string;
  body: string;
  /** The W3C traceparent the event arrived with, continued by every attempt; null without one. */
  traceparent: string | null;
  /**
   * When the event was created (its `createdAt`): the delivery's `created_at` and partition key, unless
   * the event is older than LATE_EVENT_FILED_WITHIN_DAYS (then filed at that floor's week) or dated two weeks
   * ahead or more (then filed at next week's start); the body keeps it.
   */
  createdAt: Date;
}

/** What became of one new delivery: created due now, created held (no endpoint yet), or already there. */
export type InsertOutcome = 'pending' | 'no_endpoint' | 'duplicate';

/** A single replay: the delivery's status after it, whether this call re-opened it, and its partner. */
export interface ReplayedDelivery {
  status: DeliveryStatus;
  reopened: boolean;
  partnerId: string;
}

/** Which deliveries a single replay may re-open, and whose. */
export interface ReplayScope {
  /** Only this partner's delivery is seen; absent: any partner's (the operator). */
  partnerId?: string;
  /** Also a pending delivery whose attempts of this round failed so far. */
  reopenFailing: boolean;
  /** Also a delivered one. */
  reopenDelivered: boolean;
}

/** The operator's replay: any partner's dead, delivered or held delivery. */
export const OPERATOR_REPLAY: ReplayScope = { reopenFailing: false, reopenDelivered: true };

export interface RangeReplay {
  partnerId: string;
  since: Date;
  until: Date;
  /** Only `dead` deliveries; otherwise also `delivered` and `no_endpoint` ones. */
  deadOnly: boolean;
  limit: number;
}

/** A delivery this replica holds the lease on. */
export interface ClaimedDelivery {
  deliveryId: string;
  /** The delivery's `created_at`: with the id, its key in the partitioned table (its attempts are filed under it). */
  createdAt: Date;
  eventId: string;
  partnerId: string;
  eventType: string;
  body: string;
  /** Attempts recorded before this one. */
  attemptCount: number;
  /** Operator replays so far: the attempt round this attempt belongs to. */
  replayCount: number;
  leaseId: string;
  /** The trace the event arrived with, which the attempt continues; null without one. */
  traceparent: string | null;
  /** The partner's endpoint as it is at the claim, read in the same statement; null when it has none. */
  endpoint: EndpointRecord | null;
}

export interface ClaimOptions {
  limit: number;
  /** Deliveries of one partner in flight at once, across replicas. */
  endpointInFlightMax: number;
  leaseMs: number;
}

export interface AttemptRecord {
  attemptId: string;
  attemptNumber: number;
  startedAt: Date;
  latencyMs: number;
  statusCode: number | null;
  errorClass: ErrorClass | null;
  responseExcerpt: string;
}

/** What the delivery becomes after the attempt. delayMs only for pending. */
export type DeliveryTransition = { status: 'delivered' } | { status: 'pending'; delayMs: number } | { status: 'dead' };

/** One finished attempt to record, with the lease it was made under. */
export interface AttemptRecording {
  claimed: Pick<ClaimedDelivery, 'deliveryId' | 'createdAt' | 'partnerId' | 'leaseId' | 'replayCount'>;
  attempt: AttemptRecord;
  next: DeliveryTransition;
}

/**
 * An endpoint's run of failed attempts after a batch: `consecutiveFailures` now,
 * and the values it passed through in this batch (`from`..`consecutiveFailures`).
 */
export interface FailureRun {
  partnerId: string;
  consecutiveFailures: number;
  from: number;
}

export interface RecordedBatch {
  /** Per recording, in order: false when the lease was lost (the attempt is still kept as history). */
  leaseHeld: boolean[];
  /** Endpoints whose run of failures changed. */
  failureRuns: FailureRun[];
}

export interface DeliverySummary {
  deliveryId: string;
  eventId: string;
  eventType: string;
  partnerId: string;
  status: DeliveryStatus;
  attemptCount: number;
  replayCount: number;
  lastStatusCode: number | null;
  lastErrorClass: string | null;
  nextAttemptAt: Date | null;
  createdAt: Date;
  deliveredAt: Date | null;
}

/** A delivery's summary columns as PostgreSQL returns them (the operator's and the partner's lists read the same). */
export interface SummaryRow {
  delivery_id: string;
  event_id: string;
  event_type: string;
  partner_id: string;
  status: DeliveryStatus;
  attempt_count: number;
  replay_count: number;
  last_status_code: number | null;
  last_error_class: string | null;
  next_attempt_at: Date | null;
  created_at: Date;
  delivered_at: Date | null;
}

interface ClaimRow {
  delivery_id: string;
  created_at: Date;
  event_id: string;
  partner_id: string;
  event_type: string;
  body: string;
  attempt_count: number;
  replay_count: number;
  lease_id: string;
  traceparent: string | null;
  url: string | null;
  secret_sealed: string | null;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  updated_at: Date | null;
}

/**
 * How far back an event's own creation time still files its delivery: a delivery is filed
 * (`created_at`, the partition key) at its event's creation time, or, for an event older
 * than this (replayed, or held back long upstream), at the Monday starting the week this
 * many days ago. That week is never dropped: a week goes once its end is past the delivery
 * window, which is never shorter than the feed's shortest window and the week beyond it
 * (37 days, config.ts), a day more than this. Without it, a late event would be filed in a
 * week already dropped, which no partition takes, and would never be delivered.
 */
export const LATE_EVENT_FILED_WITHIN_DAYS = 36;

const LATE_EVENT_FLOOR_SQL = `date_trunc('week', (now() - interval '${LATE_EVENT_FILED_WITHIN_DAYS} days') AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`;

/**
 * The other end: an event dated at or after the Monday starting the week after next (a producer's
 * clock far ahead) is filed at next week's Monday. The retention worker keeps at least two weeks
 * ahead of this one created (DELIVERY_PARTITIONS_AHEAD_WEEKS ≥ 2); there is no DEFAULT partition,
 * so a week missing all the same refuses the insert until the accept path creates it
 * (createFiledWeeks). Floor and ceiling bound the weeks a row may need to eight: no date, however
 * absurd, makes a partition outside them.
 */
const EARLY_EVENT_CEILING_SQL = `date_trunc('week', (now() + interval '14 days') AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`;

/**
 * The rows of `source` (aliased v, with the event's `created_at`) with the time each is filed at
 * (`filed_at`, the partition key: its own, or the floor or the week before the ceiling) and whether
 * that moved it (`late`). One expression for the insert and for the weeks it needs.
 */
const filed = (source: string) => `
    SELECT v.*,
           CASE WHEN v.created_at < f.floor THEN f.floor
                WHEN v.created_at >= f.ceiling THEN f.ceiling - interval '7 days'
                ELSE v.created_at END AS filed_at,
           v.created_at < f.floor OR v.created_at >= f.ceiling AS late
    FROM ${source}
    CROSS JOIN (SELECT ${LATE_EVENT_FLOOR_SQL} AS floor, ${EARLY_EVENT_CEILING_SQL} AS ceiling) f`;

/** The Mondays (ms, UTC) of the weeks the events created at $1 are filed in. */
const FILED_WEEKS_SQL = `
  SELECT DISTINCT (extract(epoch FROM date_trunc('week', filed_at AT TIME ZONE 'UTC')) * 1000)::bigint AS week_start_ms
  FROM (${filed('unnest($1::timestamptz[]) AS v(created_at)')}) v`;

/**
 * A partner's endpoint (`columns` of alias e) looked up by its key, once per row of the
 * statement's batch. LIMIT 1 (the key is unique anyway) keeps the planner from flattening it
 * into a join it may then run as a hash of every endpoint: one row per partner, 10,000 and more.
 */
const ENDPOINT_OF = (columns: string, partnerId: string) =>
  `SELECT ${columns} FROM endpoints e WHERE e.partner_id = ${partnerId} LIMIT 1`;

/** The tables partitioned by week together, deliveries first (an attempt is filed under its delivery's week). */
const WEEKLY_TABLES = { tables: ['webhook_deliveries', 'webhook_delivery_attempts'] } as const;

// One statement: the endpoint URL comes from the endpoints table as of this
// statement (null: held as no_endpoint, no timer). Rows go in sorted by
// (event, partner), so two replicas inserting overlapping batches take the
// unique index in the same order and cannot deadlock; an (event, partner) pair
// already there, or twice in the batch, is skipped. `created_at` is the event's own
// creation time, which its id fixes, so the partitioned table's key (event, partner,
// created_at) recognises a redelivered event; ON CONFLICT names no index so that the
// unique (event, partner) of the rows recorded before the partitioning also counts.
// A late event (older than the floor above) is filed at the floor instead, and an early one
// (at or after the ceiling) a week before the ceiling: keys that move once a week, so such an
// event is first looked up by (event, partner) in every partition (an index probe each, a
// lateral join so that only they pay it): a redelivery after the key moved is still a duplicate.
// The endpoint is looked up per row by its key (ENDPOINT_OF): joined plainly, a batch of a
// hundred rows or more had the planner hash the whole endpoints table, one row per partner.
const INSERT_MANY_SQL = `
  WITH v AS (${filed(`unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::text[], $7::timestamptz[])
         AS v(delivery_id, event_id, partner_id, event_type, body, traceparent, created_at)`)})
  INSERT INTO webhook_deliveries (delivery_id, event_id, partner_id, event_type, body, endpoint_url, status, next_attempt_at, traceparent, created_at)
  SELECT v.delivery_id, v.event_id, v.partner_id, v.event_type, v.body, e.url,
         CASE WHEN e.url IS NULL THEN 'no_endpoint' ELSE 'pending' END,
         CASE WHEN e.url IS NULL THEN NULL ELSE now() END,
         v.traceparent, v.filed_at
  FROM v
  LEFT JOIN LATERAL (${ENDPOINT_OF('e.url', 'v.partner_id')}) e ON true
  LEFT JOIN LATERAL (
    SELECT true AS known FROM webhook_deliveries x
     WHERE v.late AND x.event_id = v.event_id AND x.partner_id = v.partner_id LIMIT 1
  ) k ON true
  WHERE k.known IS NULL
  ORDER BY v.event_id, v.partner_id
  ON CONFLICT DO NOTHING
  RETURNING delivery_id, status`;

// One statement: due pending rows of partners below their in-flight cap, in
// due order, each partner's rows ranked after what it already has in flight
// (so one batch never takes a partner past the cap), leased, and returned with
// the partner's endpoint. The cap is counted from leased rows, so it holds
// across replicas (up to the race of two replicas claiming in the same instant).
// Rows locked but over the cap are released when the statement ends. The claim
// itself is the function claim_due_deliveries (migrations 1799874000000, 1799875000000): it
// walks the partitions' due indexes in due order and stops at the batch, where
// the planner, misled by statistics that see a week of finished deliveries and
// few open ones, sorted every due row of every week for each claim.
const CLAIM_DUE_SQL = `
  SELECT c.*, e.url, e.secret_sealed, e.previous_secret_sealed, e.previous_secret_expires_at, e.updated_at
  FROM claim_due_deliveries($1, $2, $3) c
  LEFT JOIN LATERAL (${ENDPOINT_OF(
    'e.url, e.secret_sealed, e.previous_secret_sealed, e.previous_secret_expires_at, e.updated_at',
    'c.partner_id',
  )}) e ON true`;

// One statement for a batch of finished attempts: every attempt kept as
// history; each delivery moved on only if this replica still holds its lease;
// and, for the attempts whose lease was held, each endpoint's run of failures:
// a success in the batch restarts it at the failures after the last success,
// otherwise it grows by the batch's failures (rows that would not change are
// not written). $1 gives the batch order.
const RECORD_ATTEMPTS_SQL = `
  WITH v AS (
    SELECT * FROM unnest(
      $1::int[], $2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::bigint[], $7::uuid[], $8::int[], $9::timestamptz[],
      $10::int[], $11::int[], $12::text[], $13::text[], $14::int[], $15::timestamptz[]
    ) AS v(ordinal, delivery_id, partner_id, lease_id, status, delay_ms, attempt_id, attempt_number, started_at,
           latency_ms, status_code, error_class, response_excerpt, round, created_at)
  ), moved AS (
    UPDATE webhook_deliveries d SET
      status = v.status,
      attempt_count = d.attempt_count + 1,
      next_attempt_at = CASE WHEN v.status = 'pending' THEN now() + v.delay_ms * interval '1 millisecond' ELSE NULL END,
      delivered_at = CASE WHEN v.status = 'delivered' THEN now() ELSE NULL END,
      lease_id = NULL,
      last_status_code = v.status_code,
      last_error_class = v.error_class,
      last_latency_ms = v.latency_ms
    FROM v
    WHERE d.delivery_id = v.delivery_id AND d.created_at = v.created_at AND d.lease_id = v.lease_id AND d.status = 'delivering'
    RETURNING d.delivery_id
  ), attempts AS (
    INSERT INTO webhook_delivery_attempts (id, delivery_id, delivery_created_at, attempt_number, started_at, latency_ms, status_code,
                                           error_class, response_excerpt, round)
    SELECT attempt_id, delivery_id, created_at, attempt_number, started_at, latency_ms, status_code, error_class, response_excerpt, round
    FROM v
  ), held AS (
    SELECT v.partner_id, v.ordinal, v.error_class IS NULL AS success,
           max(v.ordinal) FILTER (WHERE v.error_class IS NULL) OVER (PARTITION BY v.partner_id) AS last_success
    FROM v JOIN moved m ON m.delivery_id = v.delivery_id
  ), runs AS (
    SELECT partner_id, bool_or(success) AS any_success,
           count(*) FILTER (WHERE NOT success)::int AS failures,
           count(*) FILTER (WHERE NOT success AND ordinal > coalesce(last_success, -1))::int AS tail
    FROM held GROUP BY partner_id
  ), counted AS (
    UPDATE endpoints e
    SET consecutive_failures = CASE WHEN r.any_success THEN r.tail ELSE e.consecutive_failures + r.failures END
    FROM runs r
    WHERE e.partner_id = r.partner_id AND NOT (r.any_success AND r.tail = 0 AND e.consecutive_failures = 0)
    RETURNING e.partner_id, e.consecutive_failures, CASE WHEN r.any_success THEN r.tail ELSE r.failures END AS added
  )
  SELECT 'moved' AS kind, delivery_id AS id, NULL::int AS consecutive_failures, NULL::int AS added FROM moved
  UNION ALL
  SELECT 'counted', partner_id, consecutive_failures, added FROM counted`;

export class DeliveriesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Creates the deliveries of a batch of events in one statement, each due now,
   * or held as `no_endpoint` (no timer) when its partner has no endpoint. An
   * event that already has its delivery for that partner is a duplicate.
   * Outcomes in the order given.
   */
  async insertMany(deliveries: readonly NewDelivery[]): Promise<InsertOutcome[]> {
    if (deliveries.length === 0) return [];
    const rows = await queryPrepared<{ delivery_id: string; status: 'pending' | 'no_endpoint' }>(
      this.dataSource,
      'deliveries_insert',
      INSERT_MANY_SQL,
      [
        deliveries.map((delivery) => delivery.deliveryId),
        deliveries.map((delivery) => delivery.eventId),
        deliveries.map((delivery) => delivery.partnerId),
        deliveries.map((delivery) => delivery.eventType),
        deliveries.map((delivery) => delivery.body),
        deliveries.map((delivery) => delivery.traceparent),
        deliveries.map((delivery) => delivery.createdAt),
      ],
    );
    const created = new Map(rows.map((row) => [row.delivery_id, row.status]));
    return deliveries.map((delivery) => created.get(delivery.deliveryId) ?? 'duplicate');
  }

  /**
   * Creates the weeks the deliveries are filed in that are missing (in deliveries or attempts), for
   * an insert that found no partition for a row (partition maintenance stopped longer than the weeks
   * ahead, a clock jump): each as the retention worker creates it. The filing bounds the weeks (from
   * the late-event floor to next week). Answers the partitions created.
   */
  async createFiledWeeks(deliveries: readonly NewDelivery[]): Promise<string[]> {
    const rows = (await this.dataSource.query(FILED_WEEKS_SQL, [
      deliveries.map((delivery) => delivery.createdAt),
    ])) as Array<{ week_start_ms: string }>;
    const created = await createMissingWeeks(
      this.dataSource,
      WEEKLY_TABLES,
      rows.map((row) => Number(row.week_start_ms)),
    );
    return created.map((start) => weekPartitionName(WEEKLY_TABLES.tables[0], start));
  }

  /**
   * Where claimDue finds due deliveries, for the scheduler's metrics. Those held
   * back because their endpoint is at its in-flight cap count as due: they wait.
   */
  readonly dueRows: DueRows = {
    table: 'webhook_deliveries',
    dueColumn: 'next_attempt_at',
    where: "status = 'pending'",
  };

  /** Takes up to `limit` due deliveries under a fresh lease each, with their endpoints: one statement. */
  async claimDue(options: ClaimOptions): Promise<ClaimedDelivery[]> {
    const rows = await queryPrepared<ClaimRow>(this.dataSource, 'deliveries_claim_due', CLAIM_DUE_SQL, [
      options.endpointInFlightMax,
      options.limit,
      options.leaseMs,
    ]);
    return rows.map(toClaimed);
  }

  /**
   * Records a batch of finished attempts and moves each delivery on if this
   * replica still holds its lease, with the endpoints' runs of failures, in one
   * statement and one commit. A lost lease is reported as such; its attempt is
   * still kept as history, and the delivery belongs to whoever holds it now.
   */
  async recordAttempts(recordings: readonly AttemptRecording[]): Promise<RecordedBatch> {
    if (recordings.length === 0) return { leaseHeld: [], failureRuns: [] };
    const column = <T>(pick: (recording: AttemptRecording) => T) => recordings.map(pick);
    const rows = await queryPrepared<{
      kind: 'moved' | 'counted';
      id: string;
      consecutive_failures: number | null;
      added: number | null;
    }>(this.dataSource, 'attempts_record', RECORD_ATTEMPTS_SQL, [
      recordings.map((_, index) => index),
      column((r) => r.claimed.deliveryId),
      column((r) => r.claimed.partnerId),
      column((r) => r.claimed.leaseId),
      column((r) => r.next.status),
      column((r) => (r.next.status === 'pending' ? Math.round(r.next.delayMs) : null)),
      column((r) => r.attempt.attemptId),
      column((r) => r.attempt.attemptNumber),
      column((r) => r.attempt.startedAt),
      column((r) => r.attempt.latencyMs),
      column((r) => r.attempt.statusCode),
      column((r) => r.attempt.errorClass),
      column((r) => r.attempt.responseExcerpt),
      column((r) => r.claimed.replayCount),
      column((r) => r.claimed.createdAt),
    ]);
    const moved = new Set(rows.filter((row) => row.kind === 'moved').map((row) => row.id));
    const failureRuns = rows
      .filter((row) => row.kind === 'counted')
      .map((row) => ({
        partnerId: row.id,
        consecutiveFailures: Number(row.consecutive_failures),
        from: Number(row.consecutive_failures) - Number(row.added) + 1,
      }));
    return { leaseHeld: recordings.map((recording) => moved.has(recording.claimed.deliveryId)), failureRuns };
  }

  /** Newest first. */
  async listForPartner(partnerId: string, deadOnly: boolean, limit: number): Promise<DeliverySummary[]> {
    const rows = (await this.dataSource.query(
      `SELECT delivery_id, event_id, event_type, partner_id, status, attempt_count, replay_count, last_status_code, last_error_class,
              next_attempt_at, created_at, delivered_at
       FROM webhook_deliveries
       WHERE partner_id = $1 AND ($2::boolean = false OR status = 'dead')
       ORDER BY created_at DESC, delivery_id DESC
       LIMIT $3`,
      [partnerId, deadOnly, limit],
    )) as SummaryRow[];
    return rows.map(toSummary);
  }

  /**
   * Re-opens one delivery with a fresh round of attempts, keeping its delivery id.
   * Returns the status after the call and whether this call re-opened it, or null
   * when there is no such delivery (in the scope's partner, when it names one). A
   * delivery already open (pending, delivering) is left as it is, except a failing
   * one (pending after a failed attempt) when the scope re-opens failing ones.
   */
  async replayOne(
    deliveryId: string,
    manager: EntityManager = this.dataSource.manager,
    scope: ReplayScope = OPERATOR_REPLAY,
  ): Promise<ReplayedDelivery | null> {
    const statuses = REPLAYABLE_STATUSES.filter((status) => status !== 'delivered' || scope.reopenDelivered);
    const owner = scope.partnerId ?? null;
    const result = (await manager.query(
      `${REOPEN_SQL} WHERE delivery_id = $1 AND ($3::uuid IS NULL OR partner_id = $3)
         AND (status = ANY($2::text[]) OR ($4::boolean AND status = 'pending' AND attempt_count > 0)) AND ${HAS_ENDPOINT_OR_NOT_HELD}
       RETURNING partner_id`,
      [deliveryId, statuses, owner, scope.reopenFailing],
    )) as UpdateResult;
    const [reopened] = updatedRows(result) as Array<{ partner_id: string }>;
    if (reopened) return { status: 'pending', reopened: true, partnerId: reopened.partner_id };
    const [row] = (await manager.query(
      'SELECT status, partner_id FROM webhook_deliveries WHERE delivery_id = $1 AND ($2::uuid IS NULL OR partner_id = $2)',
      [deliveryId, owner],
    )) as Array<{ status: DeliveryStatus; partner_id: string }>;
    return row ? { status: row.status, reopened: false, partnerId: row.partner_id } : null;
  }

  /**
   * Re-opens up to `limit` of a partner's closed deliveries created in [since, until),
   * oldest first. Rows another caller holds are skipped (SKIP LOCKED), never waited on.
   * Returns how many were re-opened and how many still match (left for another run).
   */
  async replayRange(
    range: RangeReplay,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<{ replayed: number; remaining: number }> {
    const statuses = range.deadOnly ? ['dead'] : REPLAYABLE_STATUSES;
    const match = `partner_id = $1 AND created_at >= $2 AND created_at < $3 AND status = ANY($4::text[]) AND ${HAS_ENDPOINT_OR_NOT_HELD}`;
    const params = [range.partnerId, range.since, range.until, statuses];
    const result = (await manager.query(
      `${REOPEN_SQL} WHERE delivery_id IN (
         SELECT delivery_id FROM webhook_deliveries WHERE ${match} ORDER BY created_at LIMIT $5 FOR UPDATE SKIP LOCKED)
       RETURNING delivery_id`,
      [...params, range.limit],
    )) as UpdateResult;
    const [left] = (await manager.query(
      `SELECT count(*)::int AS n FROM webhook_deliveries WHERE ${match}`,
      params,
    )) as Array<{
      n: number;
    }>;
    return { replayed: updatedRows(result).length, remaining: left?.n ?? 0 };
  }

  /**
   * Opens the deliveries held for a partner without an endpoint, created since
   * `since`, now that it has one (in the caller's transaction when given one).
   */
  async openHeld(
    partnerId: string,
    endpointUrl: string,
    since: Date,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<number> {
    const result = (await manager.query(
      `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now(), endpoint_url = $3
       WHERE partner_id = $1 AND status = 'no_endpoint' AND created_at >= $2
       RETURNING delivery_id`,
      [partnerId, since, endpointUrl],
    )) as UpdateResult;
    return updatedRows(result).length;
  }

  /** Returns deliveries whose lease ran out (their replica died) to pending, due at once. */
  async releaseExpiredLeases(): Promise<number> {
    const result = (await this.dataSource.query(
      `UPDATE webhook_deliveries SET status = 'pending', lease_id = NULL
       WHERE status = 'delivering' AND next_attempt_at <= now()
       RETURNING delivery_id`,
    )) as UpdateResult;
    return updatedRows(result).length;
  }

  /** Pending deliveries due for longer than `overdueMs`, and the oldest due time among them. */
  async overdue(overdueMs: number): Promise<{ count: number; oldestDueAt: Date | null }> {
    const [row] = (await this.dataSource.query(
      `SELECT count(*)::int AS count, min(next_attempt_at) AS oldest FROM webhook_deliveries
       WHERE status = 'pending' AND next_attempt_at < now() - $1 * interval '1 millisecond'`,
      [overdueMs],
    )) as Array<{ count: number; oldest: Date | null }>;
    return { count: row?.count ?? 0, oldestDueAt: row?.oldest ?? null };
  }
}

// A replay grants a fresh round of DELIVERY_ATTEMPTS_MAX attempts, due at once,
// with the same delivery id; the attempts of earlier rounds stay as history.
// A held (no_endpoint) delivery stays held while the partner still has no endpoint:
// opening it would only spend its attempts on failing as no_endpoint.
const HAS_ENDPOINT_OR_NOT_HELD = `(status <> 'no_endpoint' OR EXISTS (SELECT 1 FROM endpoints e WHERE e.partner_id = webhook_deliveries.partner_id))`;
const REOPEN_SQL = `UPDATE webhook_deliveries SET status = 'pending', attempt_count = 0, replay_count = replay_count + 1,
  next_attempt_at = now(), lease_id = NULL, delivered_at = NULL`;

// TypeORM's postgres driver answers an UPDATE (or DELETE) with [rows, affectedCount]
// rather than the rows alone.
type UpdateResult = [unknown[], number];

function updatedRows(result: UpdateResult): unknown[] {
  if (!Array.isArray(result) || !Array.isArray(result[0])) throw new Error('unexpected UPDATE result shape');
  return result[0];
}

const toClaimed = (row: ClaimRow): ClaimedDelivery => ({
  deliveryId: row.delivery_id,
  createdAt: row.created_at,
  eventId: row.event_id,
  partnerId: row.partner_id,
  eventType: row.event_type,
  body: row.body,
  attemptCount: row.attempt_count,
  replayCount: row.replay_count,
  leaseId: row.lease_id,
  traceparent: row.traceparent,
  endpoint:
    row.url === null || row.secret_sealed === null
      ? null
      : {
          partnerId: row.partner_id,
          url: row.url,
          secretSealed: row.secret_sealed,
          previousSecretSealed: row.previous_secret_sealed,
          previousSecretExpiresAt: row.previous_secret_expires_at,
          updatedAt: row.updated_at ?? new Date(0),
        },
});

export const toSummary = (row: SummaryRow): DeliverySummary => ({
  deliveryId: row.delivery_id,
  eventId: row.event_id,
  eventType: row.event_type,
  partnerId: row.partner_id,
  status: row.status,
  attemptCount: row.attempt_count,
  replayCount: row.replay_count,
  lastStatusCode: row.last_status_code,
  lastErrorClass: row.last_error_class,
  nextAttemptAt: row.next_attempt_at,
  createdAt: row.created_at,
  deliveredAt: row.delivered_at,
});
