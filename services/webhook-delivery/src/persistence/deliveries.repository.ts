/**
 * Deliveries and their attempts. The row is the retry timer: `next_attempt_at`
 * says when a pending delivery is due, and any replica claims due rows with
 * FOR UPDATE SKIP LOCKED, so replicas never take the same row at once and no
 * in-process timer is needed. A claimed row is `delivering` under a lease
 * (`next_attempt_at` = lease end, `lease_id`); if its replica dies, the lease
 * runs out and the row is reclaimed with the same delivery id.
 */
import type { DataSource, EntityManager } from '@platform/persistence';
import type { ErrorClass } from '../domain/attempt-outcome';

export type DeliveryStatus = 'pending' | 'delivering' | 'delivered' | 'dead' | 'no_endpoint';

/** Statuses an operator replay re-opens; `pending` and `delivering` are already open. */
export const REPLAYABLE_STATUSES: readonly DeliveryStatus[] = ['dead', 'delivered', 'no_endpoint'];

export interface NewDelivery {
  deliveryId: string;
  eventId: string;
  partnerId: string;
  eventType: string;
  body: string;
  /** Null when the partner has no endpoint yet: the delivery is held as `no_endpoint`. */
  endpointUrl: string | null;
}

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
  eventId: string;
  partnerId: string;
  eventType: string;
  body: string;
  /** Attempts recorded before this one. */
  attemptCount: number;
  /** Operator replays so far: the attempt round this attempt belongs to. */
  replayCount: number;
  leaseId: string;
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

interface SummaryRow {
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
  event_id: string;
  partner_id: string;
  event_type: string;
  body: string;
  attempt_count: number;
  replay_count: number;
  lease_id: string;
}

// Candidates are due pending rows of partners below their in-flight cap. The
// cap is counted from leased rows, so it holds across replicas (up to the race
// of two replicas claiming in the same instant).
const SELECT_CANDIDATES_SQL = `
  SELECT d.delivery_id, d.partner_id, f.in_flight
  FROM deliveries d
  CROSS JOIN LATERAL (
    SELECT count(*)::int AS in_flight FROM deliveries x
    WHERE x.partner_id = d.partner_id AND x.status = 'delivering' AND x.next_attempt_at > now()
  ) f
  WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND f.in_flight < $1
  ORDER BY d.next_attempt_at
  LIMIT $2
  FOR UPDATE OF d SKIP LOCKED`;

export class DeliveriesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Creates the delivery, due now, or held as `no_endpoint` (no timer) when it has
   * no endpoint URL. False when this event already has one for this partner.
   */
  async insertIfAbsent(delivery: NewDelivery): Promise<boolean> {
    const rows = (await this.dataSource.query(
      `INSERT INTO deliveries (delivery_id, event_id, partner_id, event_type, body, endpoint_url, status, next_attempt_at)
       VALUES ($1, $2, $3, $4, $5, $6::text,
               CASE WHEN $6::text IS NULL THEN 'no_endpoint' ELSE 'pending' END,
               CASE WHEN $6::text IS NULL THEN NULL ELSE now() END)
       ON CONFLICT (event_id, partner_id) DO NOTHING
       RETURNING delivery_id`,
      [delivery.deliveryId, delivery.eventId, delivery.partnerId, delivery.eventType, delivery.body, delivery.endpointUrl],
    )) as unknown[];
    return rows.length === 1;
  }

  /** Takes up to `limit` due deliveries under a fresh lease each. */
  async claimDue(options: ClaimOptions): Promise<ClaimedDelivery[]> {
    return this.dataSource.transaction(async (manager) => {
      const candidates = (await manager.query(SELECT_CANDIDATES_SQL, [options.endpointInFlightMax, options.limit])) as Array<{
        delivery_id: string;
        partner_id: string;
        in_flight: number;
      }>;
      const ids = withinEndpointCap(candidates, options.endpointInFlightMax);
      if (ids.length === 0) return [];
      const result = (await manager.query(
        `UPDATE deliveries
         SET status = 'delivering', lease_id = gen_random_uuid(), next_attempt_at = now() + $2 * interval '1 millisecond'
         WHERE delivery_id = ANY($1::uuid[])
         RETURNING delivery_id, event_id, partner_id, event_type, body, attempt_count, replay_count, lease_id`,
        [ids, options.leaseMs],
      )) as UpdateResult;
      return (updatedRows(result) as ClaimRow[]).map(toClaimed);
    });
  }

  /**
   * Records the attempt and moves the delivery on, if this replica still holds
   * the lease. Returns false when the lease was lost (the attempt is still
   * recorded as history; the delivery belongs to whoever holds it now).
   */
  async recordAttempt(claimed: ClaimedDelivery, attempt: AttemptRecord, next: DeliveryTransition): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(
        `INSERT INTO delivery_attempts (id, delivery_id, attempt_number, started_at, latency_ms, status_code, error_class, response_excerpt, round)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [attempt.attemptId, claimed.deliveryId, attempt.attemptNumber, attempt.startedAt, attempt.latencyMs, attempt.statusCode, attempt.errorClass, attempt.responseExcerpt, claimed.replayCount],
      );
      const delayMs = next.status === 'pending' ? next.delayMs : null;
      const updated = (await manager.query(
        `UPDATE deliveries SET
           status = $3,
           attempt_count = attempt_count + 1,
           next_attempt_at = CASE WHEN $3 = 'pending' THEN now() + $4 * interval '1 millisecond' ELSE NULL END,
           delivered_at = CASE WHEN $3 = 'delivered' THEN now() ELSE NULL END,
           lease_id = NULL,
           last_status_code = $5,
           last_error_class = $6,
           last_latency_ms = $7
         WHERE delivery_id = $1 AND lease_id = $2 AND status = 'delivering'
         RETURNING delivery_id`,
        [claimed.deliveryId, claimed.leaseId, next.status, delayMs, attempt.statusCode, attempt.errorClass, attempt.latencyMs],
      )) as UpdateResult;
      return updatedRows(updated).length === 1;
    });
  }

  /** Newest first. */
  async listForPartner(partnerId: string, deadOnly: boolean, limit: number): Promise<DeliverySummary[]> {
    const rows = (await this.dataSource.query(
      `SELECT delivery_id, event_id, event_type, partner_id, status, attempt_count, replay_count, last_status_code, last_error_class,
              next_attempt_at, created_at, delivered_at
       FROM deliveries
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
   * when there is no such delivery. A delivery already open (pending, delivering)
   * is left as it is.
   */
  async replayOne(deliveryId: string): Promise<{ status: DeliveryStatus; reopened: boolean } | null> {
    const result = (await this.dataSource.query(
      `${REOPEN_SQL} WHERE delivery_id = $1 AND status = ANY($2::text[]) AND ${HAS_ENDPOINT_OR_NOT_HELD} RETURNING status`,
      [deliveryId, REPLAYABLE_STATUSES],
    )) as UpdateResult;
    if (updatedRows(result).length === 1) return { status: 'pending', reopened: true };
    const [row] = (await this.dataSource.query('SELECT status FROM deliveries WHERE delivery_id = $1', [deliveryId])) as Array<{ status: DeliveryStatus }>;
    return row ? { status: row.status, reopened: false } : null;
  }

  /**
   * Re-opens up to `limit` of a partner's closed deliveries created in [since, until),
   * oldest first. Rows another caller holds are skipped (SKIP LOCKED), never waited on.
   * Returns how many were re-opened and how many still match (left for another run).
   */
  async replayRange(range: RangeReplay): Promise<{ replayed: number; remaining: number }> {
    const statuses = range.deadOnly ? ['dead'] : REPLAYABLE_STATUSES;
    const match = `partner_id = $1 AND created_at >= $2 AND created_at < $3 AND status = ANY($4::text[]) AND ${HAS_ENDPOINT_OR_NOT_HELD}`;
    const params = [range.partnerId, range.since, range.until, statuses];
    const result = (await this.dataSource.query(
      `${REOPEN_SQL} WHERE delivery_id IN (
         SELECT delivery_id FROM deliveries WHERE ${match} ORDER BY created_at LIMIT $5 FOR UPDATE SKIP LOCKED)
       RETURNING delivery_id`,
      [...params, range.limit],
    )) as UpdateResult;
    const [left] = (await this.dataSource.query(`SELECT count(*)::int AS n FROM deliveries WHERE ${match}`, params)) as Array<{ n: number }>;
    return { replayed: updatedRows(result).length, remaining: left?.n ?? 0 };
  }

  /**
   * Opens the deliveries held for a partner without an endpoint, created since
   * `since`, now that it has one (in the caller's transaction when given one).
   */
  async openHeld(partnerId: string, endpointUrl: string, since: Date, manager: EntityManager = this.dataSource.manager): Promise<number> {
    const result = (await manager.query(
      `UPDATE deliveries SET status = 'pending', next_attempt_at = now(), endpoint_url = $3
       WHERE partner_id = $1 AND status = 'no_endpoint' AND created_at >= $2
       RETURNING delivery_id`,
      [partnerId, since, endpointUrl],
    )) as UpdateResult;
    return updatedRows(result).length;
  }

  /** Returns deliveries whose lease ran out (their replica died) to pending, due at once. */
  async releaseExpiredLeases(): Promise<number> {
    const result = (await this.dataSource.query(
      `UPDATE deliveries SET status = 'pending', lease_id = NULL
       WHERE status = 'delivering' AND next_attempt_at <= now()
       RETURNING delivery_id`,
    )) as UpdateResult;
    return updatedRows(result).length;
  }

  /** Pending deliveries due for longer than `overdueMs`, and the oldest due time among them. */
  async overdue(overdueMs: number): Promise<{ count: number; oldestDueAt: Date | null }> {
    const [row] = (await this.dataSource.query(
      `SELECT count(*)::int AS count, min(next_attempt_at) AS oldest FROM deliveries
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
const HAS_ENDPOINT_OR_NOT_HELD = `(status <> 'no_endpoint' OR EXISTS (SELECT 1 FROM endpoints e WHERE e.partner_id = deliveries.partner_id))`;
const REOPEN_SQL = `UPDATE deliveries SET status = 'pending', attempt_count = 0, replay_count = replay_count + 1,
  next_attempt_at = now(), lease_id = NULL, delivered_at = NULL`;

/** Keeps candidates in order while their partner has room under the cap. */
export function withinEndpointCap(candidates: Array<{ delivery_id: string; partner_id: string; in_flight: number }>, capPerEndpoint: number): string[] {
  const taken = new Map<string, number>();
  const ids: string[] = [];
  for (const candidate of candidates) {
    const inFlight = taken.get(candidate.partner_id) ?? candidate.in_flight;
    if (inFlight >= capPerEndpoint) continue;
    taken.set(candidate.partner_id, inFlight + 1);
    ids.push(candidate.delivery_id);
  }
  return ids;
}

// TypeORM's postgres driver answers an UPDATE (or DELETE) with [rows, affectedCount]
// rather than the rows alone.
type UpdateResult = [unknown[], number];

function updatedRows(result: UpdateResult): unknown[] {
  if (!Array.isArray(result) || !Array.isArray(result[0])) throw new Error('unexpected UPDATE result shape');
  return result[0];
}

const toClaimed = (row: ClaimRow): ClaimedDelivery => ({
  deliveryId: row.delivery_id,
  eventId: row.event_id,
  partnerId: row.partner_id,
  eventType: row.event_type,
  body: row.body,
  attemptCount: row.attempt_count,
  replayCount: row.replay_count,
  leaseId: row.lease_id,
});

const toSummary = (row: SummaryRow): DeliverySummary => ({
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
