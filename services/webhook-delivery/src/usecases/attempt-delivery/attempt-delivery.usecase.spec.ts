// Proves one attempt end to end with fakes at the edges: it signs the stored body
// with the endpoint's current secret (and the previous one during its overlap),
// sends to the endpoint's CURRENT url (as the claim read it), records the attempt
// with the right number and next state, records nothing when aborted at
// shutdown, and raises the failing-endpoint alert at each multiple of the
// threshold a recorded run of failures passes through.
import { SealingKeyRing, verifyWebhookSignature } from '@platform/crypto';
import { createLogger } from '@platform/logger';
import { Registry } from '@platform/metrics';
import type { OutgoingWebhook, WebhookSender } from '../../adapters/https-webhook-sender';
import type { AttemptResult } from '../../domain/attempt-outcome';
import type {
  AttemptRecord,
  AttemptRecording,
  ClaimedDelivery,
  DeliveryTransition,
  FailureRun,
} from '../../persistence/deliveries.repository';
import type { EndpointRecord } from '../../persistence/endpoints.repository';
import { DeliveryMetrics } from '../../metrics/delivery-metrics';
import { alertPoints, AttemptDeliveryUseCase } from './attempt-delivery.usecase';
import type { AttemptRecorder } from './attempt-recorder';

const key = SealingKeyRing.parse('cd'.repeat(32));
const partnerId = '6f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11';
const claimed: ClaimedDelivery = {
  deliveryId: '0b8f3c1e-5d7a-4c2b-9e1f-3a4b5c6d7e8f',
  createdAt: new Date('2026-01-01T00:00:00.000Z'),
  eventId: '1c9a4d2f-6e8b-4d3c-8f2a-4b5c6d7e8f90',
  partnerId,
  eventType: 'credit.received',
  body: '{"id":"1c9a4d2f-6e8b-4d3c-8f2a-4b5c6d7e8f90","type":"credit.received","createdAt":"2026-01-01T00:00:00.000Z","data":{}}',
  attemptCount: 2,
  replayCount: 0,
  leaseId: 'lease-1',
  endpoint: null,
};

function build(endpoint: EndpointRecord | null, result: AttemptResult, failureRun: FailureRun | null = null) {
  const sent: OutgoingWebhook[] = [];
  const recorded: Array<{ attempt: AttemptRecord; next: DeliveryTransition }> = [];
  const sender: WebhookSender = {
    async send(webhook) {
      sent.push(webhook);
      return result;
    },
  };
  const recorder: AttemptRecorder = {
    record: async ({ attempt, next }: AttemptRecording) => {
      recorded.push({ attempt, next });
      return { leaseHeld: true, failureRun };
    },
  };
  const metrics = new DeliveryMetrics(new Registry());
  const alerts = jest.spyOn(metrics, 'endpointFailingAlert');
  const useCase = new AttemptDeliveryUseCase({
    recorder,
    sender,
    sealingKeys: key,
    timeScale: 0.05,
    logger: createLogger('spec', 'error'),
    random: () => 0.5,
    metrics,
  });
  return {
    useCase,
    sent,
    recorded,
    alerts,
    run: (delivery: ClaimedDelivery = claimed) => useCase.execute({ ...delivery, endpoint }),
  };
}

const endpoint = (overrides: Partial<EndpointRecord> = {}): EndpointRecord => ({
  partnerId,
  url: 'https://hooks.example.com/current',
  secretSealed: key.seal('current-secret-0001'),
  previousSecretSealed: null,
  previousSecretExpiresAt: null,
  updatedAt: new Date(),
  ...overrides,
});

const ok: AttemptResult = {
  kind: 'response',
  statusCode: 200,
  retryAfter: undefined,
  responseExcerpt: 'ok',
  latencyMs: 12,
};

describe('AttemptDeliveryUseCase', () => {
  it('signs the stored body and sends it to the current url', async () => {
    const { run, sent } = build(endpoint(), ok);
    await run();
    const [webhook] = sent;
    expect(webhook?.url).toBe('https://hooks.example.com/current');
    expect(webhook?.body).toBe(claimed.body);
    const headers = webhook?.headers ?? {};
    expect(headers['X-Service-Delivery']).toBe(claimed.deliveryId);
    expect(
      verifyWebhookSignature(
        'current-secret-0001',
        headers['X-Service-Signature'] ?? '',
        headers['X-Service-Timestamp'] ?? '',
        claimed.deliveryId,
        claimed.body,
      ),
    ).toBe(true);
  });

  it('signs with both secrets while the previous one is in its overlap, and only the current one after', async () => {
    const previousSecretSealed = key.seal('previous-secret-001');
    const during = build(
      endpoint({ previousSecretSealed, previousSecretExpiresAt: new Date(Date.now() + 60_000) }),
      ok,
    );
    await during.run();
    const signature = during.sent[0]?.headers['X-Service-Signature'] ?? '';
    expect(signature.split(',')).toHaveLength(2);
    const timestamp = during.sent[0]?.headers['X-Service-Timestamp'] ?? '';
    expect(verifyWebhookSignature('previous-secret-001', signature, timestamp, claimed.deliveryId, claimed.body)).toBe(
      true,
    );

    const after = build(endpoint({ previousSecretSealed, previousSecretExpiresAt: new Date(Date.now() - 1) }), ok);
    await after.run();
    expect((after.sent[0]?.headers['X-Service-Signature'] ?? '').split(',')).toHaveLength(1);
  });

  it('records the attempt with its number and the delivered state', async () => {
    const { run, recorded } = build(endpoint(), ok);
    expect(await run()).toEqual({ status: 'delivered' });
    expect(recorded[0]?.attempt).toMatchObject({
      attemptNumber: 3,
      statusCode: 200,
      errorClass: null,
      latencyMs: 12,
      responseExcerpt: 'ok',
    });
    expect(recorded[0]?.next).toEqual({ status: 'delivered' });
  });

  it('schedules the next attempt (scaled) after a failure', async () => {
    const failed: AttemptResult = {
      kind: 'response',
      statusCode: 500,
      retryAfter: undefined,
      responseExcerpt: 'boom',
      latencyMs: 3,
    };
    const { run, recorded } = build(endpoint(), failed);
    await run();
    expect(recorded[0]?.attempt).toMatchObject({ statusCode: 500, errorClass: 'http_status' });
    expect(recorded[0]?.next).toEqual({ status: 'pending', delayMs: 120_000 * 0.05 }); // after attempt 3: 2 min
  });

  it('fails the attempt as no_endpoint when the endpoint is gone', async () => {
    const { run, sent, recorded } = build(null, ok);
    await run();
    expect(sent).toHaveLength(0);
    expect(recorded[0]?.attempt).toMatchObject({ errorClass: 'no_endpoint', statusCode: null });
  });

  it('records nothing when aborted at shutdown', async () => {
    const controller = new AbortController();
    controller.abort();
    const aborted: AttemptResult = { kind: 'failure', errorClass: 'connection', detail: 'aborted', latencyMs: 1 };
    const { useCase, recorded } = build(endpoint(), aborted);
    expect(await useCase.execute({ ...claimed, endpoint: endpoint() }, controller.signal)).toBeNull();
    expect(recorded).toHaveLength(0);
  });

  it('raises the failing-endpoint alert once per multiple of the threshold the recorded run passed through', async () => {
    const failed: AttemptResult = { kind: 'failure', errorClass: 'connection', detail: 'refused', latencyMs: 1 };
    const { run, alerts } = build(endpoint(), failed, { partnerId, consecutiveFailures: 21, from: 9 });
    await run();
    expect(alerts).toHaveBeenCalledTimes(2);
  });
});

describe('alertPoints', () => {
  it.each([
    [{ from: 1, consecutiveFailures: 3 }, []],
    [{ from: 10, consecutiveFailures: 10 }, [10]],
    [{ from: 8, consecutiveFailures: 12 }, [10]],
    [{ from: 11, consecutiveFailures: 19 }, []],
    [{ from: 9, consecutiveFailures: 31 }, [10, 20, 30]],
  ])('%p -> %p', (run, points) => {
    expect(alertPoints({ partnerId, ...run })).toEqual(points);
  });
});
