/**
 * The partner's events feed, read from the deliveries table: each delivery is
 * one event the partner's webhooks carry, and its `body` is exactly the
 * envelope they deliver. `feed_position` orders the feed; it is given after
 * commit by one serialised step (assignPositions), so positions become visible
 * strictly in order and a reader paging `position > cursor` never skips a row
 * that commits later with a lower position (see the migration that adds it).
 */
import type { DataSource } from '@platform/persistence';

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

  /** The cursor event of this partner, if it is one of theirs. */
  async cursorPosition(partnerId: string, eventId: string): Promise<CursorPosition> {
    const [row] = (await this.dataSource.query(
      'SELECT feed_position::text AS position, created_at FROM deliveries WHERE partner_id = $1 AND event_id = $2',
      [partnerId, eventId],
    )) as Array<{ position: string | null; created_at: Date }>;
    if (!row) return { kind: 'unknown' };
    return row.position === null
      ? { kind: 'unpositioned', createdAt: row.created_at }
      : { kind: 'positioned', position: row.position, createdAt: row.created_at };
  }

  /** Events after the position, in feed order, at most `limit`. */
  async read(query: FeedRead): Promise<FeedEvent[]> {
    const rows = (await this.dataSource.query(
      `SELECT feed_position::text AS position, event_id, event_type, body FROM deliveries
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
