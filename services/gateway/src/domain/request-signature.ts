/**
 * Verification of a signed partner request,
 * pure apart from the clock it is given. The caller looks the credential up
 * and, only once this says the request is authentic, claims the nonce.
 *
 * Timing: whatever fails, exactly one HMAC is computed and exactly one
 * constant-time comparison is made (with a random dummy key when there is no
 * usable credential), so the time taken does not reveal which check failed.
 *
 * Cost: this runs on every request. The HMAC key is a KeyObject prepared once
 * per credential (signingKeyOf, when the credential is loaded into the cache):
 * Node checks a string or Buffer key's type and copies it into a new key on
 * every createHmac, which cost more than the HMAC itself. The body's SHA-256
 * is one-shot, and a constant for the empty body of a GET.
 */
import { createHmac, createSecretKey, hash, KeyObject } from 'node:crypto';
import {
  constantTimeEqual,
  NONCE_PATTERN,
  randomToken,
  REQUEST_SIGNATURE_VERSION,
  REQUEST_TIMESTAMP_TOLERANCE_MS,
} from '@platform/crypto';

export const SIGNATURE_PATTERN = /^v1=[0-9a-f]{64}$/;
/** Milliseconds since the epoch; 15 digits reach far beyond any plausible clock. */
const TIMESTAMP_PATTERN = /^[0-9]{1,15}$/;
/**
 * The most two gateway replicas' clocks may disagree (NTP keeps them within
 * milliseconds; a minute is a clock gone wrong, which operators are alerted to).
 */
export const NONCE_CLOCK_SKEW_MARGIN_MS = 60_000;
/**
 * A nonce stays claimed for as long as any replica could still find its
 * timestamp fresh: a timestamp is accepted up to the tolerance either side of
 * a replica's clock, so one request is acceptable during twice the tolerance,
 * widened by the skew between replicas. A replay after that is stale everywhere.
 */
export const NONCE_RETENTION_MS = 2 * REQUEST_TIMESTAMP_TOLERANCE_MS + NONCE_CLOCK_SKEW_MARGIN_MS;

/** The HMAC key of a signing secret (its UTF-8 bytes, as partners sign with it), prepared once. */
export function signingKeyOf(signingSecret: string): KeyObject {
  return createSecretKey(Buffer.from(signingSecret, 'utf8'));
}

// Never a real secret, and different in every process: nothing can be signed with it.
const DUMMY_KEY = signingKeyOf(`sk_${randomToken(32)}`);
const EMPTY_BODY_SHA256_HEX = hash('sha256', '', 'hex');

/**
 * The six-line string a partner signs, as @platform/crypto's requestSigningString
 * writes it (the spec proves them equal), with the body hashed in one shot.
 */
export function signingStringOf(parts: {
  timestampMs: string;
  nonce: string;
  method: string;
  pathAndQuery: string;
  body: Buffer;
}): string {
  const bodyHex = parts.body.length === 0 ? EMPTY_BODY_SHA256_HEX : hash('sha256', parts.body, 'hex');
  return `${REQUEST_SIGNATURE_VERSION}\n${parts.timestampMs}\n${parts.nonce}\n${parts.method.toUpperCase()}\n${parts.pathAndQuery}\n${bodyHex}`;
}

/** Why a request was refused; logged, never returned (the 401 is uniform). */
export type AuthFailureReason =
  | 'missing_header'
  | 'malformed_api_key'
  | 'malformed_timestamp'
  | 'stale_timestamp'
  | 'malformed_nonce'
  | 'malformed_signature'
  | 'unknown_api_key'
  | 'revoked_credential'
  | 'bad_signature'
  | 'replayed_nonce';

export interface AuthHeaders {
  apiKey?: string;
  timestampMs?: string;
  nonce?: string;
  signature?: string;
}

export const AUTH_HEADER_NAMES = {
  apiKey: 'x-service-key',
  timestampMs: 'x-service-timestamp',
  nonce: 'x-service-nonce',
  signature: 'x-service-signature',
} as const;

/** Reads the four headers; a repeated header arrives comma-joined and fails its shape check. */
export function readAuthHeaders(header: (name: string) => string | string[] | undefined): AuthHeaders {
  const read = (name: string) => {
    const value = header(name);
    return typeof value === 'string' ? value : undefined;
  };
  return {
    apiKey: read(AUTH_HEADER_NAMES.apiKey),
    timestampMs: read(AUTH_HEADER_NAMES.timestampMs),
    nonce: read(AUTH_HEADER_NAMES.nonce),
    signature: read(AUTH_HEADER_NAMES.signature),
  };
}

export function isWellFormedApiKey(
  headers: AuthHeaders,
  apiKeyPattern: RegExp,
): headers is AuthHeaders & { apiKey: string } {
  return typeof headers.apiKey === 'string' && apiKeyPattern.test(headers.apiKey);
}

/** The first shape or freshness problem of the headers, or null when they are usable. */
export function checkHeaderShapes(
  headers: AuthHeaders,
  apiKeyPattern: RegExp,
  nowMs: number,
): AuthFailureReason | null {
  const { apiKey, timestampMs, nonce, signature } = headers;
  if (apiKey === undefined || timestampMs === undefined || nonce === undefined || signature === undefined)
    return 'missing_header';
  if (!apiKeyPattern.test(apiKey)) return 'malformed_api_key';
  if (!TIMESTAMP_PATTERN.test(timestampMs)) return 'malformed_timestamp';
  if (Math.abs(nowMs - Number(timestampMs)) > REQUEST_TIMESTAMP_TOLERANCE_MS) return 'stale_timestamp';
  if (!NONCE_PATTERN.test(nonce)) return 'malformed_nonce';
  if (!SIGNATURE_PATTERN.test(signature)) return 'malformed_signature';
  return null;
}

export interface VerifiableCredential {
  /** signingKeyOf(the credential's signing secret). */
  signingKey: KeyObject;
  status: 'active' | 'revoked';
}

export interface SignatureCheck {
  headers: AuthHeaders;
  /** checkHeaderShapes' verdict. */
  shapeFailure: AuthFailureReason | null;
  /** null when the key is unknown (or was not looked up because it is malformed). */
  credential: VerifiableCredential | null;
  method: string;
  /** Path and query exactly as sent. */
  pathAndQuery: string;
  body: Buffer;
}

export interface SignatureCrypto {
  hmacSha256Hex: (key: KeyObject, data: string) => string;
  constantTimeEqual: (a: string, b: string) => boolean;
}

const nodeCrypto: SignatureCrypto = {
  hmacSha256Hex: (key, data) => createHmac('sha256', key).update(data).digest('hex'),
  constantTimeEqual,
};

/** Null when the request is authentic (nonce not yet claimed), else the reason to log. */
export function verifySignature(check: SignatureCheck, crypto: SignatureCrypto = nodeCrypto): AuthFailureReason | null {
  const { headers, shapeFailure, credential } = check;
  const signingString = signingStringOf({
    timestampMs: headers.timestampMs ?? '',
    nonce: headers.nonce ?? '',
    method: check.method,
    pathAndQuery: check.pathAndQuery,
    body: check.body,
  });
  const key = shapeFailure === null && credential?.status === 'active' ? credential.signingKey : DUMMY_KEY;
  const expected = `${REQUEST_SIGNATURE_VERSION}=${crypto.hmacSha256Hex(key, signingString)}`;
  const matches = crypto.constantTimeEqual(headers.signature ?? '', expected);
  if (shapeFailure !== null) return shapeFailure;
  if (credential === null) return 'unknown_api_key';
  if (credential.status !== 'active') return 'revoked_credential';
  return matches ? null : 'bad_signature';
}
