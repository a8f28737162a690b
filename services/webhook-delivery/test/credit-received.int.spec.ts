// Proves the credit.received webhook end to end through the running test stack, as a partner sees it:
// a sandbox KES credit produces a `credit.received` webhook at an HTTPS endpoint,
// signed as partners verify it (verified over the exact raw body),
// with the partner envelope and no partnerId; the operator's `deliveries list`
// shows it delivered in one attempt. Also: a 500 is retried after the scheduled
// (time-scaled) delay with the same X-Service-Delivery id, and a 302 counts as a
// failed attempt and is never followed.
import { randomBytes } from 'node:crypto';
import { verifyWebhookSignature } from '@platform/crypto';
import {
  createTestPartner,
  HttpsReceiver,
  loadTestStack,
  PartnerHttpClient,
  ReceivedRequest,
  runOps,
  startHttpsReceiver,
  TestPartner,
  waitFor,
} from '@platform/testing';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_TIMESTAMP_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const TIMESTAMP_TOLERANCE_MS = 5 * 60_000;
const FIRST_RETRY_DELAY_MS = 30_000;
const RETRY_JITTER_RATIO = 0.2;
const SCHEDULING_SLACK_MS = 100;
const WEBHOOK_WAIT_MS = 30_000;

interface DeliveryView {
  deliveryId: string;
  status: string;
  attemptCount: number;
  lastStatusCode?: number;
  lastErrorClass?: string;
}

const newSecret = () => `whsec_${randomBytes(24).toString('hex')}`;

// The ops tool prints the gRPC Delivery; accept either field spelling so this spec
// tests the delivery, not the tool's formatting.
function toView(raw: Record<string, unknown>): DeliveryView {
  const pick = (camel: string, snake: string) => raw[camel] ?? raw[snake];
  return {
    deliveryId: String(pick('deliveryId', 'delivery_id')),
    status: String(raw.status),
    attemptCount: Number(pick('attemptCount', 'attempt_count')),
    lastStatusCode: pick('lastStatusCode', 'last_status_code') as number | undefined,
    lastErrorClass: pick('lastErrorClass', 'last_error_class') as string | undefined,
  };
}

async function listDeliveries(partnerId: string): Promise<DeliveryView[]> {
  const output = await runOps<{ deliveries: Record<string, unknown>[] }>([
    'deliveries',
    'list',
    '--partner',
    partnerId,
  ]);
  return output.deliveries.map(toView);
}

async function setWebhook(partner: TestPartner, url: string, secret: string): Promise<void> {
  await runOps(['webhook', 'set', '--partner', partner.partnerId, '--url', url, '--secret', secret]);
}

async function sandboxKesCredit(partner: TestPartner, reference: string): Promise<void> {
  const response = await new PartnerHttpClient(partner).post('/v1/sandbox/kes-credits', {
    amount: '1500.00',
    reference,
  });
  expect([200, 201]).toContain(response.status);
}

function header(request: ReceivedRequest, name: string): string {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(',') : (value ?? '');
}

function signatureVerifies(request: ReceivedRequest, secret: string): boolean {
  return verifyWebhookSignature(
    secret,
    header(request, 'X-Service-Signature'),
    header(request, 'X-Service-Timestamp'),
    header(request, 'X-Service-Delivery'),
    request.body,
  );
}

function sandboxTimeScale(): number {
  const scale = (loadTestStack() as unknown as { sandboxTimeScale?: number }).sandboxTimeScale;
  return typeof scale === 'number' && scale > 0 ? scale : 0.05;
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
    await sandboxKesCredit(partner, 'ABC123');
    const [request] = await receiver.waitForRequests(1, WEBHOOK_WAIT_MS);
    if (!request) throw new Error('no webhook received');

    expect(request.method).toBe('POST');
    expect(request.path).toBe('/webhooks');
    expect(header(request, 'Content-Type')).toMatch(/^application\/json/);
    expect(header(request, 'X-Service-Event')).toBe('credit.received');
    expect(header(request, 'X-Service-Delivery')).toMatch(UUID);
    expect(Math.abs(Date.now() - Number(header(request, 'X-Service-Timestamp')))).toBeLessThan(TIMESTAMP_TOLERANCE_MS);
    expect(header(request, 'X-Service-Signature')).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(signatureVerifies(request, secret)).toBe(true);
    expect(signatureVerifies(request, newSecret())).toBe(false);

    const body = JSON.parse(request.body) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['id', 'type', 'createdAt', 'data']);
    expect(body.id).toMatch(UUID);
    expect(body.type).toBe('credit.received');
    expect(body.createdAt).toMatch(ISO_TIMESTAMP_MS);
    expect(body.data).toMatchObject({
      transactionId: expect.any(String),
      accountId: partner.kesAccountId,
      amount: { currency: 'KES', value: '1500.00' },
      rail: 'mobile_money_paybill',
      reference: 'ABC123',
      receivedAt: expect.stringMatching(ISO_TIMESTAMP_MS),
    });
    expect(request.body).not.toContain('partnerId');
    expect(request.body).not.toContain(partner.partnerId);

    const delivery = await waitFor(
      async () => {
        const [latest] = await listDeliveries(partner.partnerId);
        return latest?.status === 'delivered' ? latest : undefined;
      },
      { timeoutMs: 10_000, what: 'the delivery to read delivered' },
    );
    expect(delivery).toMatchObject({
      deliveryId: header(request, 'X-Service-Delivery'),
      attemptCount: 1,
      lastStatusCode: 200,
    });
    expect(receiver.requests).toHaveLength(1);
  });

  it('retries a 500 after the scheduled delay with the same delivery id', async () => {
    receiver.respondWith(500);
    await sandboxKesCredit(partner, 'RETRY500');
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

    const delivery = await waitFor(
      async () => {
        const [latest] = await listDeliveries(partner.partnerId);
        return latest?.status === 'delivered' ? latest : undefined;
      },
      { timeoutMs: 10_000, what: 'the delivery to read delivered' },
    );
    expect(delivery).toMatchObject({
      deliveryId: header(first, 'X-Service-Delivery'),
      attemptCount: 2,
      lastStatusCode: 200,
    });
  });

  it('counts a 302 as a failed attempt and never follows it', async () => {
    receiver.respondWith(302, { Location: `${receiver.url}-redirected` });
    await sandboxKesCredit(partner, 'REDIR302');
    const [request] = await receiver.waitForRequests(1, WEBHOOK_WAIT_MS);
    if (!request) throw new Error('no webhook received');

    const delivery = await waitFor(
      async () => {
        const [latest] = await listDeliveries(partner.partnerId);
        return latest && latest.attemptCount >= 1 ? latest : undefined;
      },
      { timeoutMs: 10_000, what: 'the first attempt to be recorded' },
    );
    expect(delivery.deliveryId).toBe(header(request, 'X-Service-Delivery'));
    expect(delivery.status).not.toBe('delivered');
    expect(delivery).toMatchObject({ lastStatusCode: 302, lastErrorClass: 'redirect' });
    expect(receiver.requests.every((received) => received.path === '/webhooks')).toBe(true);
  });
});
