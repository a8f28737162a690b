/**
 * Cryptography in one place: sealing stored secrets, the request and webhook
 * signing schemes of the contract, constant-time comparison and random tokens.
 * Everything uses node:crypto; nothing here is hand-rolled beyond composition.
 */
import { createHash, createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
export { dammCheckDigit } from './check-digit';

export { SealingKeyRing, SEALING_KEYS_MAX } from './key-ring';
export type { SealingKey } from './key-ring';

export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

export function hmacSha256Hex(secret: string, data: string | Buffer): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(data).digest('hex');
}

/** Constant-time comparison of two strings; false (not throw) on length mismatch. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  // Compare against self when lengths differ so the time spent does not depend on where they differ.
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}

export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** A uniformly random numeric code of `digits` digits (leading zeros kept). */
export function randomNumericCode(digits = 6): string {
  return randomInt(0, 10 ** digits)
    .toString()
    .padStart(digits, '0');
}

export const REQUEST_SIGNATURE_VERSION = 'v1';
export const REQUEST_TIMESTAMP_TOLERANCE_MS = 300_000;
export const NONCE_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;

export interface RequestSigningParts {
  timestampMs: string;
  nonce: string;
  method: string;
  /** Path and query exactly as sent, e.g. `/v1/collections?status=open`. */
  pathAndQuery: string;
  body: string | Buffer;
}

/** The six-line canonical string a partner signs (method, path and query, timestamp, nonce, …), joined by "\n". */
export function requestSigningString(parts: RequestSigningParts): string {
  return [
    REQUEST_SIGNATURE_VERSION,
    parts.timestampMs,
    parts.nonce,
    parts.method.toUpperCase(),
    parts.pathAndQuery,
    sha256Hex(parts.body),
  ].join('\n');
}

/** `v1=<hex>` for a partner request. */
export function signRequest(signingSecret: string, parts: RequestSigningParts): string {
  return `${REQUEST_SIGNATURE_VERSION}=${hmacSha256Hex(signingSecret, requestSigningString(parts))}`;
}

/** Headers for a signed partner request (used by the SDK, the ops tool's examples and tests). */
export function signedRequestHeaders(
  credentials: { apiKey: string; signingSecret: string },
  request: { method: string; pathAndQuery: string; body?: string; nowMs?: number; nonce?: string },
): Record<string, string> {
  const timestampMs = String(request.nowMs ?? Date.now());
  const nonce = request.nonce ?? randomToken(18);
  const signature = signRequest(credentials.signingSecret, {
    timestampMs,
    nonce,
    method: request.method,
    pathAndQuery: request.pathAndQuery,
    body: request.body ?? '',
  });
  return {
    'X-Service-Key': credentials.apiKey,
    'X-Service-Timestamp': timestampMs,
    'X-Service-Nonce': nonce,
    'X-Service-Signature': signature,
  };
}

/** Webhook signature over `<timestamp>.<deliveryId>.<raw body>` (what partners verify on every webhook). */
export function webhookSignature(
  signingSecret: string,
  timestampMs: string,
  deliveryId: string,
  body: string | Buffer,
): string {
  const signed = Buffer.concat([
    Buffer.from(`${timestampMs}.${deliveryId}.`, 'utf8'),
    Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'),
  ]);
  return hmacSha256Hex(signingSecret, signed);
}

/** The X-Service-Signature header value for one or (during rotation) two secrets. */
export function webhookSignatureHeader(
  secrets: string[],
  timestampMs: string,
  deliveryId: string,
  body: string | Buffer,
): string {
  return secrets.map((secret) => `v1=${webhookSignature(secret, timestampMs, deliveryId, body)}`).join(',');
}

/** Verifies a webhook signature header against a secret: any one `v1=` value matching is enough. */
export function verifyWebhookSignature(
  secret: string,
  header: string,
  timestampMs: string,
  deliveryId: string,
  body: string | Buffer,
): boolean {
  const expected = webhookSignature(secret, timestampMs, deliveryId, body);
  let matched = false;
  for (const part of header.split(',')) {
    const [version, value] = part.trim().split('=');
    if (version === 'v1' && value !== undefined && constantTimeEqual(value, expected)) matched = true;
  }
  return matched;
}
