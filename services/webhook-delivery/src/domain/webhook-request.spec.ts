// Proves the attempt headers partners verify: the
// signature covers `<timestamp>.<delivery id>.<raw body>` and verifies with the
// partner-side helper, and during rotation both secrets sign; the attempt's
// traceparent is sent when there is one, and the header left out otherwise.
import { verifyWebhookSignature } from '@platform/crypto';
import { webhookHeaders } from './webhook-request';

const deliveryId = '0b8f3c1e-5d7a-4c2b-9e1f-3a4b5c6d7e8f';
const body = '{"id":"e","type":"credit.received","createdAt":"2026-01-01T00:00:00.000Z","data":{"note":"ünïcode"}}';
const nowMs = 1_767_225_600_000;

describe('webhookHeaders', () => {
  it('carries the delivery id, event type, timestamp, content type and length', () => {
    const headers = webhookHeaders({
      deliveryId,
      eventType: 'credit.received',
      body,
      secrets: ['s'.repeat(16)],
      nowMs,
    });
    expect(headers).toMatchObject({
      'Content-Type': 'application/json',
      'Content-Length': String(Buffer.byteLength(body)),
      'X-Service-Delivery': deliveryId,
      'X-Service-Event': 'credit.received',
      'X-Service-Timestamp': String(nowMs),
    });
    expect(headers['User-Agent']).toMatch(/\/webhook$/);
    expect(headers['X-Service-Signature']).toMatch(/^v1=[0-9a-f]{64}$/);
  });

  it('signs so that the partner can verify the exact body', () => {
    const secret = 'whsec_0123456789abcdef';
    const headers = webhookHeaders({ deliveryId, eventType: 'credit.received', body, secrets: [secret], nowMs });
    const signature = headers['X-Service-Signature'] ?? '';
    expect(verifyWebhookSignature(secret, signature, String(nowMs), deliveryId, body)).toBe(true);
    expect(verifyWebhookSignature(secret, signature, String(nowMs + 1), deliveryId, body)).toBe(false);
    expect(verifyWebhookSignature(secret, signature, String(nowMs), deliveryId, `${body} `)).toBe(false);
    expect(verifyWebhookSignature('another-secret-000', signature, String(nowMs), deliveryId, body)).toBe(false);
  });

  it('sends two signatures during rotation, each verifying with its own secret', () => {
    const headers = webhookHeaders({
      deliveryId,
      eventType: 'credit.received',
      body,
      secrets: ['new-secret-0123456', 'old-secret-0123456'],
      nowMs,
    });
    const signature = headers['X-Service-Signature'] ?? '';
    expect(signature).toMatch(/^v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(verifyWebhookSignature('new-secret-0123456', signature, String(nowMs), deliveryId, body)).toBe(true);
    expect(verifyWebhookSignature('old-secret-0123456', signature, String(nowMs), deliveryId, body)).toBe(true);
  });

  it('refuses to sign without a secret', () => {
    expect(() => webhookHeaders({ deliveryId, eventType: 'credit.received', body, secrets: [], nowMs })).toThrow();
  });

  it("sends the attempt's traceparent when there is one, and no such header otherwise", () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    expect(
      webhookHeaders({ deliveryId, eventType: 'credit.received', body, secrets: ['s'.repeat(16)], nowMs, traceparent })
        .traceparent,
    ).toBe(traceparent);
    for (const none of [undefined, null]) {
      expect(
        webhookHeaders({
          deliveryId,
          eventType: 'credit.received',
          body,
          secrets: ['s'.repeat(16)],
          nowMs,
          traceparent: none,
        }),
      ).not.toHaveProperty('traceparent');
    }
  });
});
