// Proves the feed read's decisions with a fake feed: a page of `limit` events
// names the next cursor only when more follow; a cursor that is unknown, expired
// or still unpositioned is refused, refused, or positioned on demand (an empty
// page if it still has no position); and every bad parameter is named. The
// JSON-array form reads the same page (same cursor, type, window and size) and
// passes the repository's array and next cursor through.
import type { CursorPosition, EventFeedRepository, FeedEvent, FeedRead } from '../../persistence/event-feed.repository';
import { ListEventsUseCase } from './list-events.usecase';

const partnerId = '6f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11';
const cursorId = '0b8f3c1e-5d7a-4c2b-9e1f-3a4b5c6d7e8f';
const NOW_MS = Date.parse('2026-11-26T10:00:00.000Z');
const DAY_MS = 86_400_000;

const event = (n: number): FeedEvent => ({
  position: String(n),
  eventId: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  eventType: 'credit.received',
  body: `{"n":${n}}`,
});

function build(cursors: CursorPosition[], rows: FeedEvent[] = []) {
  const reads: FeedRead[] = [];
  let steps = 0;
  const feed: Pick<EventFeedRepository, 'assignPositions' | 'cursorPosition' | 'read' | 'readJsonArray'> = {
    assignPositions: async () => ((steps += 1), 1),
    cursorPosition: async () => cursors.shift() ?? { kind: 'unknown' },
    read: async (query) => (reads.push(query), rows.slice(0, query.limit)),
    readJsonArray: async (query) => {
      reads.push(query);
      const page = rows.slice(0, query.limit);
      const more = rows.length > query.limit;
      return {
        json: `[${page.map((row) => row.body).join(',')}]`,
        more,
        lastEventId: more ? page[page.length - 1]!.eventId : null,
      };
    },
  };
  const useCase = new ListEventsUseCase(feed, { retentionDays: 30, positionBatchSize: 100, nowMs: () => NOW_MS });
  return { useCase, reads, steps: () => steps };
}

const query = (overrides: Partial<{ afterEventId: string; eventType: string; limit: number }> = {}) => ({
  partnerId,
  afterEventId: '',
  eventType: '',
  limit: 0,
  ...overrides,
});

describe('ListEventsUseCase', () => {
  it('reads from the start with the default page, and names the next cursor only when more follow', async () => {
    const { useCase, reads } = build([], [event(1), event(2), event(3)]);
    expect(await useCase.execute(query({ limit: 2 }))).toEqual({
      events: [event(1), event(2)],
      nextAfterEventId: event(2).eventId,
      retentionDays: 30,
    });
    expect(reads[0]).toEqual({
      partnerId,
      afterPosition: '0',
      eventType: null,
      notBefore: new Date(NOW_MS - 30 * DAY_MS),
      limit: 3,
    });
    expect((await useCase.execute(query({ limit: 5 }))).nextAfterEventId).toBe('');
    expect(reads[1]!.limit).toBe(6);
    await useCase.execute(query({ eventType: 'order.settled' }));
    expect(reads[2]).toMatchObject({ eventType: 'order.settled', limit: 51 });
  });

  it('reads after a positioned cursor', async () => {
    const { useCase, reads } = build([{ kind: 'positioned', position: '42', createdAt: new Date(NOW_MS) }]);
    await useCase.execute(query({ afterEventId: cursorId }));
    expect(reads[0]!.afterPosition).toBe('42');
  });

  it('refuses an unknown cursor and one older than the retention window', async () => {
    await expect(build([{ kind: 'unknown' }]).useCase.execute(query({ afterEventId: cursorId }))).rejects.toMatchObject(
      { code: 'EVENT_CURSOR_UNKNOWN' },
    );
    const old = { kind: 'positioned' as const, position: '1', createdAt: new Date(NOW_MS - 31 * DAY_MS) };
    await expect(build([old]).useCase.execute(query({ afterEventId: cursorId }))).rejects.toMatchObject({
      code: 'EVENT_CURSOR_EXPIRED',
    });
  });

  it('positions an unpositioned cursor on demand, or answers an empty page while it still waits', async () => {
    const waiting = { kind: 'unpositioned' as const, createdAt: new Date(NOW_MS) };
    const positioned = build([waiting, { kind: 'positioned', position: '7', createdAt: new Date(NOW_MS) }], [event(8)]);
    expect((await positioned.useCase.execute(query({ afterEventId: cursorId }))).events).toEqual([event(8)]);
    expect(positioned.steps()).toBe(1);
    expect(positioned.reads[0]!.afterPosition).toBe('7');
    const still = build([waiting, waiting], [event(8)]);
    expect(await still.useCase.execute(query({ afterEventId: cursorId }))).toEqual({
      events: [],
      nextAfterEventId: '',
      retentionDays: 30,
    });
    expect(still.reads).toEqual([]);
  });

  it('answers the same page as one JSON array, reading the same rows', async () => {
    const { useCase, reads } = build([], [event(1), event(2), event(3)]);
    expect(await useCase.executeAsJsonArray(query({ limit: 2, eventType: 'credit.received' }))).toEqual({
      json: '[{"n":1},{"n":2}]',
      nextAfterEventId: event(2).eventId,
      retentionDays: 30,
    });
    expect(reads[0]).toEqual({
      partnerId,
      afterPosition: '0',
      eventType: 'credit.received',
      notBefore: new Date(NOW_MS - 30 * DAY_MS),
      limit: 2,
    });
    expect(await useCase.executeAsJsonArray(query({ limit: 3 }))).toMatchObject({
      json: '[{"n":1},{"n":2},{"n":3}]',
      nextAfterEventId: '',
    });
    const waiting = { kind: 'unpositioned' as const, createdAt: new Date(NOW_MS) };
    const still = build([waiting, waiting], [event(8)]);
    expect(await still.useCase.executeAsJsonArray(query({ afterEventId: cursorId }))).toEqual({
      json: '[]',
      nextAfterEventId: '',
      retentionDays: 30,
    });
    await expect(
      build([{ kind: 'unknown' }]).useCase.executeAsJsonArray(query({ afterEventId: cursorId })),
    ).rejects.toMatchObject({ code: 'EVENT_CURSOR_UNKNOWN' });
  });

  it('names every bad parameter', async () => {
    await expect(
      build([]).useCase.execute({ partnerId: 'x', afterEventId: 'y', eventType: 'order.unknown', limit: 101 }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED', fields: ['partnerId', 'after', 'type', 'limit'] });
  });
});
