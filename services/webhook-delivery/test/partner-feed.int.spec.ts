// Proves the partner plane of webhook delivery through the gateway, end to end on
// the test stack: a partner whose endpoint was down catches up from the events
// feed (each event exactly the body its webhook carries, paged by event id, with
// the type filter); every parameter of the feed and of the deliveries list is
// validated, and unknown or foreign cursors are refused. Every answer is checked
// against the OpenAPI document by the test client. A partner's own list of its
// failing and dead deliveries, and its retry of a dead one, wait out the whole
// retry schedule: dead-letter-replay.int.spec.ts proves them beside the
// operator's replay, so the schedule is waited for once.
import { randomUUID } from 'node:crypto';
import {
  createTestPartner,
  HttpsReceiver,
  PartnerHttpClient,
  startHttpsReceiver,
  TestPartner,
  waitFor,
} from '@platform/testing';
import { sandboxKesCredit, setWebhook } from './webhook-test-support';

const WAIT_MS = 20_000;

interface FeedEvent {
  id: string;
  type: string;
  createdAt: string;
  data: Record<string, unknown>;
}

describe("the events feed and a partner's webhook deliveries", () => {
  let partner: TestPartner;
  let other: TestPartner;
  let client: PartnerHttpClient;
  let otherClient: PartnerHttpClient;
  let receiver: HttpsReceiver;

  beforeAll(async () => {
    [partner, other] = await Promise.all([createTestPartner(), createTestPartner()]);
    client = new PartnerHttpClient(partner);
    otherClient = new PartnerHttpClient(other);
  });

  beforeEach(async () => {
    receiver = await startHttpsReceiver();
  });

  afterEach(async () => {
    await receiver.close();
  });

  const feedAfter = async (query: string) => {
    const response = await client.get<FeedEvent[]>(`/v1/events${query}`);
    expect(response.status).toBe(200);
    return response;
  };

  it('lets a partner whose endpoint was down catch up from the feed, in order, with the bodies its webhooks carry', async () => {
    receiver.respondWith(503);
    await setWebhook(partner, receiver.url);
    const before = (await feedAfter('')).body.map((event) => event.id);
    for (const reference of ['FEED1', 'FEED2', 'FEED3']) await sandboxKesCredit(partner, reference);
    const attempts = await receiver.waitForRequests(3, WAIT_MS);

    // Catching up from the last event processed before the outage: every new event once, oldest first.
    // An event joins the feed a moment after it is recorded (its position is given after commit), so
    // the catch-up is read again until the third credit is there, as a partner's job would run again.
    const catchUp = async () => {
      const events: FeedEvent[] = [];
      for await (const event of client.sdk.events.catchUp({
        ...(before.length ? { after: before[before.length - 1] } : {}),
        limit: 2,
      }))
        events.push(event as FeedEvent);
      return events;
    };
    const caughtUp = await waitFor(
      async () => {
        const events = await catchUp();
        return events.length >= 3 ? events : undefined;
      },
      { timeoutMs: WAIT_MS, what: 'the three credits in the events feed' },
    );
    expect(caughtUp.map((event) => event.type)).toEqual(['credit.received', 'credit.received', 'credit.received']);
    const feedText = (await feedAfter(before.length ? `?after=${before[before.length - 1]}` : '')).text;
    for (const attempt of attempts) expect(feedText).toContain(attempt.body);

    // Paging by hand: X-Next-Cursor is the next page's `after`, absent once caught up.
    const first = await feedAfter(`?limit=1${before.length ? `&after=${before[before.length - 1]}` : ''}`);
    expect(first.body).toHaveLength(1);
    expect(first.headers.get('x-next-cursor')).toBe(first.body[0]!.id);
    const last = await feedAfter(`?after=${caughtUp[2]!.id}`);
    expect(last.body).toEqual([]);
    expect(last.headers.get('x-next-cursor')).toBeNull();
    expect((await feedAfter('?type=order.settled')).body).toEqual([]);
    expect((await feedAfter(`?type=credit.received&after=${caughtUp[0]!.id}`)).body.map((event) => event.id)).toEqual(
      caughtUp.slice(1).map((event) => event.id),
    );
    // Another partner's feed holds none of them.
    const foreign = await otherClient.get<FeedEvent[]>('/v1/events');
    expect(foreign.body.filter((event) => caughtUp.some((mine) => mine.id === event.id))).toEqual([]);
  });

  it('validates every parameter and refuses unknown or foreign cursors', async () => {
    const refusal = async (path: string, expected: string) => {
      const response = await client.get(path);
      expect({ path, status: response.status, message: response.body.message }).toEqual({
        path,
        status: 400,
        message: expected,
      });
    };
    await refusal('/v1/events?after=nope', 'Validation failed on: after');
    await refusal('/v1/events?type=order.unknown', 'Validation failed on: type');
    await refusal('/v1/events?limit=0', 'Validation failed on: limit');
    await refusal('/v1/events?limit=101', 'Validation failed on: limit');
    await refusal('/v1/events?cursor=abc', 'Validation failed on: cursor');
    await refusal('/v1/events?limit=1&limit=2', 'Validation failed on: limit');
    await refusal(`/v1/events?after=${randomUUID()}`, 'EVENT_CURSOR_UNKNOWN');
    await refusal('/v1/webhook-deliveries?status=pending', 'Validation failed on: status');
    await refusal('/v1/webhook-deliveries?limit=101', 'Validation failed on: limit');
    await refusal('/v1/webhook-deliveries?cursor=***', 'Validation failed on: cursor');
    await refusal('/v1/webhook-deliveries?cursor=bm90LWEtY3Vyc29y', 'Validation failed on: cursor');
    await refusal('/v1/webhook-deliveries?after=x', 'Validation failed on: after');
    // Another partner's event is not a cursor of this partner's feed.
    const [theirs] = (await otherClient.get<FeedEvent[]>('/v1/events')).body;
    if (theirs) await refusal(`/v1/events?after=${theirs.id}`, 'EVENT_CURSOR_UNKNOWN');
    const malformedRetry = await client.post('/v1/webhook-deliveries/not-an-id/retry');
    expect({ status: malformedRetry.status, message: malformedRetry.body.message }).toEqual({
      status: 404,
      message: 'DELIVERY_NOT_FOUND',
    });
  });
});
