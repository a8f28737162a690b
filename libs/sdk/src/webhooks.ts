/**
 * Verifying a webhook delivery (docs/webhooks.md), usable from any
 * Node HTTP framework: hand it the raw body bytes as received (before any JSON
 * parsing) and the request headers; it returns the verified event or throws
 * WebhookVerificationError (answer 400 and do not process).
 *
 * Checks, in order: the four headers are present; the timestamp is within the
 * tolerance of the local clock; one of the `v1=` signatures matches one of the
 * secrets (two during a rotation), compared in constant time; the body is a
 * JSON event. Then the optional dedupe hook tells whether the delivery id was
 * seen before: a duplicate is normal and must be acknowledged (2xx) and ignored.
 */
import { timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors';
import { hmacSha256Hex } from './signing';
import type { WebhookEvent } from './types';

/** Partners are told to refuse a timestamp older than this. */
export const WEBHOOK_TOLERANCE_MS = 300_000;
const SIGNATURE_PARTS_MAX = 8;

export type HeaderSource = { get(name: string): string | null } | Record<string, string | string[] | undefined>;

export interface WebhookVerifierOptions {
  /** The endpoint's signing secret, or both during a rotation overlap. */
  secrets: string | string[];
  toleranceMs?: number;
  nowMs?: () => number;
  /**
   * Dedupe hook: resolve true when this X-Service-Delivery id was already
   * processed (e.g. an INSERT … ON CONFLICT DO NOTHING that inserted nothing).
   * Called only for verified deliveries.
   */
  seenBefore?: (deliveryId: string) => boolean | Promise<boolean>;
}

export interface VerifiedWebhook<D = Record<string, unknown>> {
  event: WebhookEvent<D>;
  deliveryId: string;
  /** X-Service-Event, a hint only: `event.type` is authoritative. */
  eventHint: string | undefined;
  timestampMs: number;
  /** True when the dedupe hook says it was processed before: acknowledge and ignore. */
  duplicate: boolean;
}

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function')
    return (headers as { get(n: string): string | null }).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const value =
    record[name.toLowerCase()] ?? Object.entries(record).find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1];
  return Array.isArray(value) ? value[0] : value;
}

function constantTimeHexEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** True when any `v1=` value of the header matches the signature under any secret. */
export function webhookSignatureMatches(
  signatureHeader: string,
  secrets: string[],
  timestamp: string,
  deliveryId: string,
  rawBody: Uint8Array,
): boolean {
  const signed = Buffer.concat([Buffer.from(`${timestamp}.${deliveryId}.`, 'utf8'), rawBody]);
  const expected = secrets.map((secret) => hmacSha256Hex(secret, signed));
  const given = signatureHeader
    .split(',')
    .slice(0, SIGNATURE_PARTS_MAX)
    .map((part) => part.trim())
    .filter((part) => part.startsWith('v1='))
    .map((part) => part.slice(3));
  let matched = false;
  for (const value of given)
    for (const candidate of expected) if (constantTimeHexEqual(value, candidate)) matched = true;
  return matched;
}

function parseEvent(rawBody: Buffer): WebhookEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('malformed_body', 'not JSON');
  }
  const event = parsed as Partial<WebhookEvent>;
  if (
    !event ||
    typeof event !== 'object' ||
    typeof event.id !== 'string' ||
    typeof event.type !== 'string' ||
    typeof event.createdAt !== 'string' ||
    !event.data ||
    typeof event.data !== 'object'
  ) {
    throw new WebhookVerificationError('malformed_body', 'not an event envelope {id, type, createdAt, data}');
  }
  return event as WebhookEvent;
}

export function createWebhookVerifier(options: WebhookVerifierOptions) {
  const secrets = Array.isArray(options.secrets) ? options.secrets : [options.secrets];
  if (secrets.length === 0 || secrets.some((secret) => !secret))
    throw new Error('createWebhookVerifier: at least one non-empty secret');
  const toleranceMs = options.toleranceMs ?? WEBHOOK_TOLERANCE_MS;
  const nowMs = options.nowMs ?? Date.now;
  return {
    async verify<D = Record<string, unknown>>(
      rawBody: string | Uint8Array,
      headers: HeaderSource,
    ): Promise<VerifiedWebhook<D>> {
      const signature = header(headers, 'x-service-signature');
      const timestamp = header(headers, 'x-service-timestamp');
      const deliveryId = header(headers, 'x-service-delivery');
      if (!signature || !timestamp || !deliveryId)
        throw new WebhookVerificationError(
          'missing_header',
          'X-Service-Signature, -Timestamp and -Delivery are required',
        );
      const timestampMs = /^\d{1,15}$/.test(timestamp) ? Number(timestamp) : NaN;
      if (!Number.isFinite(timestampMs) || Math.abs(nowMs() - timestampMs) > toleranceMs) {
        throw new WebhookVerificationError('stale_timestamp', 'X-Service-Timestamp is outside the tolerance');
      }
      const bytes = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
      if (!webhookSignatureMatches(signature, secrets, timestamp, deliveryId, bytes))
        throw new WebhookVerificationError('bad_signature', 'no signature matches');
      const event = parseEvent(bytes) as WebhookEvent<D>;
      const duplicate = options.seenBefore ? await options.seenBefore(deliveryId) : false;
      return { event, deliveryId, eventHint: header(headers, 'x-service-event'), timestampMs, duplicate };
    },
  };
}

/** A bounded in-memory dedupe hook for one process (use a database table across replicas). */
export function inMemoryDeliveryDedupe(capacity = 10_000): (deliveryId: string) => boolean {
  const seen = new Set<string>();
  return (deliveryId) => {
    if (seen.has(deliveryId)) return true;
    seen.add(deliveryId);
    if (seen.size > capacity) seen.delete(seen.values().next().value as string);
    return false;
  };
}
