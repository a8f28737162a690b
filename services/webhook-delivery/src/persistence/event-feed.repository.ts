/**
 * The partner's events feed, read from the deliveries table: each delivery is
 * one event the partner's webhooks carry, and its `body` is exactly the
 * envelope they deliver. `feed_position` orders the feed; it is given after
 * commit by one serialised step (assignPositions), so positions become visible
 * strictly in order and a reader paging `position > cursor` never skips a row
 * that commits later with a lower position (see the migration that adds it).
 */
import { type DataSource, queryPreparedArrays } from '@platform/persistence';

/** A page of the feed: events after a position, oldest first, $4 of them (the partner's feed index). */
const FEED_PAGE_SQL = `SELECT event_id::text, body FROM webhook_deliveries
  WHERE partner_id = $1 AND feed_position IS NOT NULL AND feed_position > $2::bigint AND created_at >= $3
  ORDER BY feed_position
  LIMIT $4`;

/** The same page of one event type only (the partner's type index). */
const FEED_PAGE_OF_TYPE_SQL = `SELECT event_id::text, body FROM webhook_deliveries
  WHERE partner_id = $1 AND feed_position IS NOT NULL AND feed_position > $2::bigint AND created_at >= $3
    AND event_type = $5
  ORDER BY feed_position
  LIMIT $4`;

/** Where the page's cursor event stands: its position (null while the positioner has not reached it) and its time. */
const FEED_CURSOR_SQL =
  'SELECT feed_position::text, created_at FROM webhook_deliveries WHERE partner_id = $1 AND event_id = $2';

/** A page of the feed as the one JSON array the partner receives. */
export interface FeedJsonPage {
  /** `[` + the bodies of at most `limit` events in feed order, joined by `,` + `]`. */
  json: string;
  /** True when at least one more event follows the page already. */
  more: boolean;
  /** The page's last event id when `more`; null otherwise. */
  lastEventId: string | null;
}

/** Unpositioned events counted at most: a backlog past this reads as this many (the age still tells how late the feed is). */
export const UNPOSITIONED_COUNTED_MAX = 100_000;

/** Events committed but not yet given a feed position: the positioner's backlog. */
export interface UnpositionedEvents {
  /** How many, at most UNPOSITIONED_COUNTED_MAX. */
  count: number;
  /** How long the oldest has waited, by the database's clock; 0 when none waits. */
  oldestAgeSeconds: number;
}

/** Where a cursor event stands in the partner's feed. */
export type CursorPosition =
  | { kind: 'positioned'; position: string; createdAt: Date }
  | { kind: 'unpositioned'; createdAt: Date }
  | { kind: 'unknown' };

export interface FeedEvent {
  /** bigint as a decimal string. */
  position: string;
  eventId: string;
  eventType: string;
  /** The partner envelope `{id, type, createdAt, data}` as delivered, serialised. */
  body: string;
}

export interface FeedRead {
  partnerId: string;
  /** Positions strictly after this one ("0": from the start). */
  afterPosition: string;
  eventType: string | null;
  /** Only events created at or after this time are served (the retention window). */
  notBefore: Date;
  limit: number;
}

export class EventFeedRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Gives up to `limit` committed, unpositioned deliveries the next positions,
   * oldest first, in one statement (the assign_feed_positions function: the
   * feed lock, then the numbering, committed together). Returns how many.
   */
  async assignPositions(limit: number): Promise<number> {
    const [row] = (await this.dataSource.query('SELECT assign_feed_positions($1) AS assigned', [limit])) as Array<{
      assigned: number;
    }>;
    return row?.assigned ?? 0;
  }

  /**
   * The positioner's backlog, read along the partial index of unpositioned rows
   * (deliveries_unpositioned_idx, ordered by created_at): the oldest is its first
   * entry, and the count walks at most UNPOSITIONED_COUNTED_MAX of them.
   */
  async unpositioned(): Promise<UnpositionedEvents> {
    const [row] = (await this.dataSource.query(
      `SELECT (SELECT count(*)::int FROM (SELECT 1 FROM webhook_deliveries WHERE feed_position IS NULL LIMIT $1) waiting) AS count,
              coalesce(extract(epoch FROM clock_timestamp() - (SELECT min(created_at) FROM webhook_deliveries WHERE feed_position IS NULL)), 0)::float8 AS oldest_age_seconds`,
      [UNPOSITIONED_COUNTED_MAX],
    )) as Array<{ count: number; oldest_age_seconds: number }>;
    return { count: row?.count ?? 0, oldestAgeSeconds: Math.max(0, row?.oldest_age_seconds ?? 0) };
  }

  /**
   * The cursor event of this partner, if it is one of theirs: read before
   * every page after the first, so a prepared statement like the page's
   * (its plan, a key lookup, made once per connection, not per page).
   */
  async cursorPosition(partnerId: string, eventId: string): Promise<CursorPosition> {
    const [row] = await queryPreparedArrays<[position: string | null, createdAt: Date]>(
      this.dataSource,
      'feed_cursor',
      FEED_CURSOR_SQL,
      [partnerId, eventId],
    );
    if (!row) return { kind: 'unknown' };
    const [position, createdAt] = row;
    return position === null ? { kind: 'unpositioned', createdAt } : { kind: 'positioned', position, createdAt };
  }

  /**
   * The page `read` would answer as the one JSON array the partner receives:
   * the stored bodies joined as they are, so no event is parsed, copied into
   * an object or encoded on its own here or in the gateway. It reads `limit`
   * + 1 rows (the extra one only says whether more follow) along the
   * partner's feed index, as a prepared statement whose generic plan is that
   * index range at any size (a type filter is its own statement, along the
   * partner's type index): planning cost as much as the page's execution.
   */
  async readJsonArray(query: FeedRead): Promise<FeedJsonPage> {
    const values: unknown[] = [query.partnerId, query.afterPosition, query.notBefore, query.limit + 1];
    if (query.eventType !== null) values.push(query.eventType);
    const rows = await queryPreparedArrays<[eventId: string, body: string]>(
      this.dataSource,
      'feed_page',
      query.eventType === null ? FEED_PAGE_SQL : FEED_PAGE_OF_TYPE_SQL,
      values,
    );
    const more = rows.length > query.limit;
    const page = more ? rows.slice(0, query.limit) : rows;
    return {
      json: `[${page.map(([, body]) => body).join(',')}]`,
      more,
      lastEventId: more ? page[page.length - 1]![0] : null,
    };
  }

  /** Events after the position, in feed order, at most `limit`. */
  async read(query: FeedRead): Promise<FeedEvent[]> {
    const rows = (await this.dataSource.query(
      `SELECT feed_position::text AS position, event_id, event_type, body FROM webhook_deliveries
       WHERE partner_id = $1 AND feed_position IS NOT NULL AND feed_position > $2::bigint
         AND ($3::text IS NULL OR event_type = $3) AND created_at >= $4
       ORDER BY feed_position
       LIMIT $5`,
      [query.partnerId, query.afterPosition, query.eventType, query.notBefore, query.limit],
    )) as Array<{ position: string; event_id: string; event_type: string; body: string }>;
    return rows.map((row) => ({
      position: row.position,
      eventId: row.event_id,
      eventType: row.event_type,
      body: row.body,
    }));
  }
}
