/**
 * Request signing of the partner plane (docs/getting-started.md), written
 * here with node:crypto only so the SDK has no dependency on platform code. A
 * unit test proves it signs exactly as the gateway verifies (@platform/crypto).
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';

export const SIGNATURE_VERSION = 'v1';
/** The gateway accepts a timestamp within this much of its clock, either way. */
export const SIGNING_TOLERANCE_MS = 300_000;
const NONCE_BYTES = 18;

export interface Credentials {
  apiKey: string;
  signingSecret: string;
}

export interface SigningInput {
  method: string;
  /** Path and query exactly as sent, e.g. `/v1/collections?status=open`. */
  pathAndQuery: string;
  /** The raw body bytes; '' when there is none. */
  body: string | Uint8Array;
  timestampMs?: number;
  nonce?: string;
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

export function hmacSha256Hex(secret: string, data: string | Uint8Array): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(data).digest('hex');
}

/** A fresh single-use nonce: 24 characters of base64url (within [A-Za-z0-9_-]{16,128}). */
export function newNonce(): string {
  return randomBytes(NONCE_BYTES).toString('base64url');
}

/** The six lines joined by "\n" that the signature covers. */
export function signingString(
  timestampMs: string,
  nonce: string,
  method: string,
  pathAndQuery: string,
  body: string | Uint8Array,
): string {
  return [SIGNATURE_VERSION, timestampMs, nonce, method.toUpperCase(), pathAndQuery, sha256Hex(body)].join('\n');
}

/** The four X-Service-* headers of one signed request. Sign each attempt afresh: a nonce is single-use. */
export function signRequestHeaders(credentials: Credentials, input: SigningInput): Record<string, string> {
  const timestampMs = String(input.timestampMs ?? Date.now());
  const nonce = input.nonce ?? newNonce();
  const signature = hmacSha256Hex(
    credentials.signingSecret,
    signingString(timestampMs, nonce, input.method, input.pathAndQuery, input.body),
  );
  return {
    'X-Service-Key': credentials.apiKey,
    'X-Service-Timestamp': timestampMs,
    'X-Service-Nonce': nonce,
    'X-Service-Signature': `${SIGNATURE_VERSION}=${signature}`,
  };
}
