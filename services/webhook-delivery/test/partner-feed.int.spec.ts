// Proves the partner plane of webhook delivery through the gateway, end to end on
// the test stack: a partner whose endpoint was down catches up from the events
// feed (each event exactly the body its webhook carries, paged by event id, with
// the type filter); every parameter of the feed and of the deliveries list is
// validated, and unknown or foreign cursors are refused; a partner lists its own
// deliveries by status and retries a dead one after fixing its endpoint (same
// delivery id, idempotent), while another partner's id is 404. Every answer is
// checked against the OpenAPI document by the test client.
import { randomUUID } from 'node:crypto';
import {
  createTestPartner,
  HttpsReceiver,
  PartnerHttpClient,
  startHttpsReceiver,
  TestPartner,
  waitFor,
} from '@platform/testing';
import { deliveryIdOf, sandboxKesCredit, setWebhook } from './webhook-test-support';

const ATTEMPTS = 7;
/** The scaled schedule (≈ 92 s at 0.05, up to 110 s with jitter). */
const FULL_SCHEDULE_WAIT_MS = 150_000;
const DEAD_TEST_TIMEOUT_MS = 220_000;
const WAIT_MS = 20_000;

interface FeedEvent {
  id: string;
  type: string;
  createdAt: string;
  data: Record<string, unknown>;
}
interface Delivery {
  id: string;
  eventId: string;
  eventType: string;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  nextAttemptAt: string | null;
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

  it(
    'lists a failing then dead delivery, retries it once the endpoint is fixed with the same id, and hides it from another partner',
    async () => {
      const partnerOwn = await createTestPartner();
      const own = new PartnerHttpClient(partnerOwn);
      receiver.respondWith(500);
      await setWebhook(partnerOwn, receiver.url);
      await sandboxKesCredit(partnerOwn, 'RETRY1');
      const [firstAttempt] = await receiver.waitForRequests(1, WAIT_MS);
      const deliveryId = deliveryIdOf(firstAttempt!);
      const listed = (status: string) =>
        own.get<Delivery[]>(`/v1/webhook-deliveries?status=${status}`).then((response) => response.body);

      const failing = await waitFor(
        async () => (await listed('failing')).find((delivery) => delivery.id === deliveryId),
        { timeoutMs: WAIT_MS, what: 'a failing delivery' },
      );
      expect(failing).toMatchObject({ eventType: 'credit.received', lastStatusCode: 500, status: 'failing' });
      expect(failing.nextAttemptAt).not.toBeNull();
      await receiver.waitForRequests(ATTEMPTS, FULL_SCHEDULE_WAIT_MS);
      const dead = await waitFor(async () => (await listed('dead')).find((delivery) => delivery.id === deliveryId), {
        timeoutMs: WAIT_MS,
        what: 'a dead delivery',
      });
      expect(dead).toMatchObject({ attempts: ATTEMPTS, nextAttemptAt: null });

      const foreignRetry = await otherClient.post(`/v1/webhook-deliveries/${deliveryId}/retry`);
      expect({ status: foreignRetry.status, message: foreignRetry.body.message }).toEqual({
        status: 404,
        message: 'DELIVERY_NOT_FOUND',
      });
      expect(
        (await otherClient.get<Delivery[]>('/v1/webhook-deliveries')).body.some(
          (delivery) => delivery.id === deliveryId,
        ),
      ).toBe(false);

      receiver.respondWith(200);
      const retried = await own.post<Delivery>(`/v1/webhook-deliveries/${deliveryId}/retry`);
      expect(retried.status).toBe(200);
      expect(retried.body).toMatchObject({ id: deliveryId, status: 'pending', attempts: 0 });
      const [, , , , , , , resent] = await receiver.waitForRequests(ATTEMPTS + 1, WAIT_MS);
      expect(deliveryIdOf(resent!)).toBe(deliveryId);
      expect(resent!.body).toBe(firstAttempt!.body);
      await waitFor(async () => (await listed('delivered')).find((delivery) => delivery.id === deliveryId), {
        timeoutMs: WAIT_MS,
        what: 'the retry delivered',
      });
      // Asking again answers the delivery as it is and sends nothing more.
      const again = await own.post<Delivery>(`/v1/webhook-deliveries/${deliveryId}/retry`);
      expect(again.body).toMatchObject({ id: deliveryId, status: 'delivered' });
      expect(receiver.requests).toHaveLength(ATTEMPTS + 1);
    },
    DEAD_TEST_TIMEOUT_MS,
  );
});
