/**
 * The headers of one webhook attempt, as partners verify them. The timestamp is the time of this attempt, so each retry is
 * signed afresh; the delivery id is the same on every attempt. `traceparent`
 * (W3C trace context, not signed) names the attempt within the trace of the
 * request that caused the event, so a partner can correlate it with their own.
 */
import { webhookSignatureHeader } from '@platform/crypto';

export const WEBHOOK_USER_AGENT = 'PartnerPlatform/webhook';

export interface WebhookHeadersInput {
  deliveryId: string;
  eventType: string;
  body: string;
  /** Current secret first, then the previous one while its overlap lasts. */
  secrets: string[];
  nowMs: number;
  /** The attempt's W3C traceparent; the header is left out without one. */
  traceparent?: string | null;
}

export function webhookHeaders(input: WebhookHeadersInput): Record<string, string> {
  if (input.secrets.length === 0) throw new Error('webhookHeaders: at least one signing secret is required');
  const timestampMs = String(input.nowMs);
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(input.body, 'utf8')),
    'User-Agent': WEBHOOK_USER_AGENT,
    'X-Service-Delivery': input.deliveryId,
    'X-Service-Event': input.eventType,
    'X-Service-Timestamp': timestampMs,
    'X-Service-Signature': webhookSignatureHeader(input.secrets, timestampMs, input.deliveryId, input.body),
  };
  if (input.traceparent) headers.traceparent = input.traceparent;
  return headers;
}
