/**
 * The partner's events feed: every event its webhooks carry, in feed order,
 * each exactly the envelope a webhook delivers. A partner that missed
 * webhooks pages from the last event id it processed; positions are given
 * after commit by one serialised step (EventFeedRepository), so paging never
 * skips or repeats an event while new ones arrive. Events older than the
 * retention window are not served, and a cursor among them is expired.
 */
import { AppError, validationFailed } from '@platform/errors';
import { isPartnerEventType } from '@platform/events';
import { isUuid } from '@platform/ids';
import { PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX } from '@platform/persistence';
import type { EventFeedRepository, FeedEvent, FeedRead } from '../../persistence/event-feed.repository';

const DAY_MS = 86_400_000;

export interface ListEventsQuery {
  partnerId: string;
  /** "": from the oldest event kept. */
  afterEventId: string;
  /** "": every type. */
  eventType: string;
  /** 0: the default. */
  limit: number;
}

export interface EventsPage {
  events: FeedEvent[];
  /** The last event's id when more events follow already; "" when caught up. */
  nextAfterEventId: string;
  retentionDays: number;
}

/** The same page as the one JSON array the partner receives (`[` + bodies joined by `,` + `]`). */
export interface EventsJsonPage {
  json: string;
  nextAfterEventId: string;
  retentionDays: number;
}

export interface ListEventsOptions {
  retentionDays: number;
  /** Rows the on-demand positioning step may position (the positioner's batch). */
  positionBatchSize: number;
  nowMs?: () => number;
}

export class ListEventsUseCase {
  constructor(
    private readonly feed: Pick<EventFeedRepository, 'assignPositions' | 'cursorPosition' | 'read' | 'readJsonArray'>,
    private readonly options: ListEventsOptions,
  ) {}

  async execute(query: ListEventsQuery): Promise<EventsPage> {
    const empty = { events: [], nextAfterEventId: '', retentionDays: this.options.retentionDays };
    const read = await this.pageRead(query);
    if (read === null) return empty;
    const rows = await this.feed.read({ ...read, limit: read.limit + 1 });
    const events = rows.slice(0, read.limit);
    const last = events[events.length - 1];
    return { ...empty, events, nextAfterEventId: rows.length > read.limit && last ? last.eventId : '' };
  }

  /** The page `execute` answers, as the JSON array the partner receives, built without handling each event. */
  async executeAsJsonArray(query: ListEventsQuery): Promise<EventsJsonPage> {
    const read = await this.pageRead(query);
    if (read === null) return { json: '[]', nextAfterEventId: '', retentionDays: this.options.retentionDays };
    const page = await this.feed.readJsonArray(read);
    return { json: page.json, nextAfterEventId: page.lastEventId ?? '', retentionDays: this.options.retentionDays };
  }

  /** What a page reads (`limit` events after the cursor's position), or null when the cursor has no position yet. */
  private async pageRead(query: ListEventsQuery): Promise<FeedRead | null> {
    const limit = checkQuery(query);
    const notBefore = new Date((this.options.nowMs ?? Date.now)() - this.options.retentionDays * DAY_MS);
    const afterPosition =
      query.afterEventId === '' ? '0' : await this.positionOf(query.partnerId, query.afterEventId, notBefore);
    if (afterPosition === null) return null;
    return { partnerId: query.partnerId, afterPosition, eventType: query.eventType || null, notBefore, limit };
  }

  /**
   * The cursor event's position; null while it has none yet (a webhook may
   * carry an event moments before the positioner reaches it): one step is
   * run at once, and if the event is still waiting the page is empty, so the
   * partner asks again from the same id.
   */
  private async positionOf(partnerId: string, eventId: string, notBefore: Date): Promise<string | null> {
    let cursor = await this.feed.cursorPosition(partnerId, eventId);
    if (cursor.kind === 'unknown') throw new AppError('EVENT_CURSOR_UNKNOWN');
    if (cursor.createdAt < notBefore) throw new AppError('EVENT_CURSOR_EXPIRED');
    if (cursor.kind === 'unpositioned') {
      await this.feed.assignPositions(this.options.positionBatchSize);
      cursor = await this.feed.cursorPosition(partnerId, eventId);
    }
    return cursor.kind === 'positioned' ? cursor.position : null;
  }
}

/** The page size, after checking every parameter (each bad one named). */
function checkQuery(query: ListEventsQuery): number {
  const bad: string[] = [];
  if (!isUuid(query.partnerId)) bad.push('partnerId');
  if (query.afterEventId !== '' && !isUuid(query.afterEventId)) bad.push('after');
  if (query.eventType !== '' && !isPartnerEventType(query.eventType)) bad.push('type');
  const limit = query.limit === 0 ? PAGE_LIMIT_DEFAULT : query.limit;
  if (!Number.isInteger(limit) || limit < 1 || limit > PAGE_LIMIT_MAX) bad.push('limit');
  if (bad.length > 0) throw validationFailed(bad);
  return limit;
}
