/**
 * What one attempt's result means: delivered, try again later, or dead.
 * Any 2xx acknowledges. A 3xx is a failure of its own class (`redirect`): we
 * never follow redirects, and the partner must see why. Everything else that
 * answered is `http_status`; transport failures carry their own class.
 */
import { parseRetryAfterMs } from './retry-after';
import { honourRetryAfter, RandomUnit, retryDelayMs, RETRY_AFTER_STATUS_CODES } from './retry-schedule';

export type ErrorClass =
  | 'timeout'
  | 'connection'
  | 'tls'
  | 'dns'
  | 'protocol'
  | 'redirect'
  | 'http_status'
  | 'ssrf_refused'
  | 'invalid_url'
  | 'no_endpoint';

/** What the sender reports for one attempt. */
export type AttemptResult =
  | { kind: 'response'; statusCode: number; retryAfter: string | undefined; responseExcerpt: string; latencyMs: number }
  | { kind: 'failure'; errorClass: ErrorClass; detail: string; latencyMs: number };

export function classifyStatusCode(statusCode: number): ErrorClass | null {
  if (statusCode >= 200 && statusCode <= 299) return null;
  if (statusCode >= 300 && statusCode <= 399) return 'redirect';
  return 'http_status';
}

/** The error class of an attempt, or null when it delivered. */
export function errorClassOf(result: AttemptResult): ErrorClass | null {
  return result.kind === 'response' ? classifyStatusCode(result.statusCode) : result.errorClass;
}

const TLS_ERROR_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'HOSTNAME_MISMATCH',
]);
const DNS_ERROR_CODES = new Set([
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EAI_NONAME',
  'ENODATA',
  'ESERVFAIL',
  'EREFUSED',
]);

/** Maps a Node socket, DNS or TLS error code to an error class. */
export function classifyNetworkErrorCode(code: string | undefined): ErrorClass {
  if (code === undefined) return 'connection';
  if (DNS_ERROR_CODES.has(code)) return 'dns';
  if (
    TLS_ERROR_CODES.has(code) ||
    code.startsWith('ERR_TLS_') ||
    code.startsWith('ERR_SSL_') ||
    code.startsWith('CERT_')
  )
    return 'tls';
  if (code.startsWith('HPE_')) return 'protocol';
  return 'connection';
}

export type NextDeliveryState = { status: 'delivered' } | { status: 'pending'; delayMs: number } | { status: 'dead' };

export interface NextStateInput {
  /** 1-based number of the attempt just made. */
  attemptNumber: number;
  result: AttemptResult;
  nowMs: number;
  timeScale: number;
  random?: RandomUnit;
}

export function nextDeliveryState(input: NextStateInput): NextDeliveryState {
  const { result } = input;
  if (errorClassOf(result) === null) return { status: 'delivered' };
  const scheduledMs = retryDelayMs(input.attemptNumber, input.timeScale, input.random);
  if (scheduledMs === null) return { status: 'dead' };
  const asksForWait = result.kind === 'response' && RETRY_AFTER_STATUS_CODES.has(result.statusCode);
  const retryAfterMs = asksForWait ? parseRetryAfterMs(result.retryAfter, input.nowMs) : null;
  return { status: 'pending', delayMs: honourRetryAfter(scheduledMs, retryAfterMs, input.timeScale) };
}
