// Proves the credit.received webhook end to end through the running test stack, as a partner sees it:
// a sandbox KES credit produces a `credit.received` webhook at an HTTPS endpoint,
// signed as partners verify it (verified over the exact raw body),
// with the partner envelope and no partnerId; the operator's `deliveries list`
// shows it delivered in one attempt. Also: a 500 is retried after the scheduled
// (time-scaled) delay with the same X-Service-Delivery id, and a 302 counts as a
// failed attempt and is never followed.
import { UUID_PATTERN } from '@platform/ids';
import { createTestPartner, HttpsReceiver, ReceivedRequest, startHttpsReceiver, TestPartner } from '@platform/testing';
import {
  header,
  newSecret,
  sandboxKesCredit,
  sandboxTimeScale,
  setWebhook,
  signatureVerifies,
  waitForDelivery,
} from './webhook-test-support';

const ISO_TIMESTAMP_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const TIMESTAMP_TOLERANCE_MS = 5 * 60_000;
const FIRST_RETRY_DELAY_MS = 30_000;
const RETRY_JITTER_RATIO = 0.2;
const SCHEDULING_SLACK_MS = 100;
const WEBHOOK_WAIT_MS = 30_000;
const DELIVERY_LIST_WAIT_MS = 10_000;

/** The credit every test sends (the webhook must carry exactly this amount). */
const CREDIT_KES = '1500.00';

/** The partner's only delivery ends delivered: the id the receiver saw, after `attempts` attempts, the last answered 200. */
async function expectDelivered(partnerId: string, request: ReceivedRequest, attempts: number): Promise<void> {
  const delivery = await waitForDelivery(
    partnerId,
    (latest) => latest.status === 'delivered',
    'the delivery to read delivered',
    DELIVERY_LIST_WAIT_MS,
  );
  expect(delivery).toMatchObject({
    deliveryId: header(request, 'X-Service-Delivery'),
    attemptCount: attempts,
    lastStatusCode: 200,
  });
}

describe('credit.received webhook', () => {
  let partner: TestPartner;
  let receiver: HttpsReceiver;
  let secret: string;

  beforeEach(async () => {
    partner = await createTestPartner();
    receiver = await startHttpsReceiver();
    secret = newSecret();
    await setWebhook(partner, receiver.url, secret);
  });

  afterEach(async () => {
    await receiver.close();
  });

  it('delivers a sandbox KES credit, signed over the exact body, in one attempt', async () => {
    await sandboxKesCredit(partner, 'ABC123', CREDIT_KES);
    const [request] = await receiver.waitForRequests(1, WEBHOOK_WAIT_MS);
    if (!request) throw new Error('no webhook received');

    expect(request.method).toBe('POST');
    expect(request.path).toBe(receiver.path);
    expect(header(request, 'Content-Type')).toMatch(/^application\/json/);
    expect(header(request, 'X-Service-Event')).toBe('credit.received');
    expect(header(request, 'X-Service-Delivery')).toMatch(UUID_PATTERN);
    expect(Math.abs(Date.now() - Number(header(request, 'X-Service-Timestamp')))).toBeLessThan(TIMESTAMP_TOLERANCE_MS);
    expect(header(request, 'X-Service-Signature')).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(signatureVerifies(request, secret)).toBe(true);
    expect(signatureVerifies(request, newSecret())).toBe(false);

    const body = JSON.parse(request.body) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['id', 'type', 'createdAt', 'data']);
    expect(body.id).toMatch(UUID_PATTERN);
    expect(body.type).toBe('credit.received');
    expect(body.createdAt).toMatch(ISO_TIMESTAMP_MS);
    expect(body.data).toMatchObject({
      transactionId: expect.any(String),
      accountId: partner.kesAccountId,
      amount: { currency: 'KES', value: CREDIT_KES },
      rail: 'mobile_money_paybill',
      reference: 'ABC123',
      receivedAt: expect.stringMatching(ISO_TIMESTAMP_MS),
    });
    expect(request.body).not.toContain('partnerId');
    expect(request.body).not.toContain(partner.partnerId);

    await expectDelivered(partner.partnerId, request, 1);
    expect(receiver.requests).toHaveLength(1);
  });

  it('retries a 500 after the scheduled delay with the same delivery id', async () => {
    receiver.respondWith(500);
    await sandboxKesCredit(partner, 'RETRY500', CREDIT_KES);
    await receiver.waitForRequests(1, WEBHOOK_WAIT_MS);
    receiver.respondWith(200);
    const [first, second] = await receiver.waitForRequests(2, WEBHOOK_WAIT_MS);
    if (!first || !second) throw new Error('expected two attempts');

    expect(header(second, 'X-Service-Delivery')).toBe(header(first, 'X-Service-Delivery'));
    expect(second.body).toBe(first.body);
    expect(signatureVerifies(first, secret)).toBe(true);
    expect(signatureVerifies(second, secret)).toBe(true);
    // Each attempt is signed afresh with its own timestamp.
    expect(Number(header(second, 'X-Service-Timestamp'))).toBeGreaterThan(Number(header(first, 'X-Service-Timestamp')));
    const earliestRetryMs = FIRST_RETRY_DELAY_MS * (1 - RETRY_JITTER_RATIO) * sandboxTimeScale() - SCHEDULING_SLACK_MS;
    expect(second.receivedAtMs - first.receivedAtMs).toBeGreaterThanOrEqual(earliestRetryMs);

    await expectDelivered(partner.partnerId, first, 2);
  });

  it('counts a 302 as a failed attempt and never follows it', async () => {
    receiver.respondWith(302, { Location: `${receiver.url}-redirected` });
    await sandboxKesCredit(partner, 'REDIR302', CREDIT_KES);
    const [request] = await receiver.waitForRequests(1, WEBHOOK_WAIT_MS);
    if (!request) throw new Error('no webhook received');

    const delivery = await waitForDelivery(
      partner.partnerId,
      (latest) => latest.attemptCount >= 1,
      'the first attempt to be recorded',
      DELIVERY_LIST_WAIT_MS,
    );
    expect(delivery.deliveryId).toBe(header(request, 'X-Service-Delivery'));
    expect(delivery.status).not.toBe('delivered');
    expect(delivery).toMatchObject({ lastStatusCode: 302, lastErrorClass: 'redirect' });
    expect(receiver.requests.every((received) => received.path === receiver.path)).toBe(true);
  });
});
