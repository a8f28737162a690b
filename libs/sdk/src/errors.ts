/** Typed failures: every non-2xx answer of the API, and every refused webhook. */

/** The error envelope every refusal answers. */
export interface ErrorEnvelope {
  statusCode: number;
  /** The stable code to branch on (`ORDER_NOT_FOUND`), or `Validation failed on: …`. */
  message: string;
  error: string;
  requestId: string;
  errorCode?: string;
  retryAfterSeconds?: number;
}

const VALIDATION_PREFIX = 'Validation failed on: ';

/** A non-2xx answer. `code` is the stable code (`VALIDATION_FAILED` for validation sentences, `UNAUTHORIZED`, `RATE_LIMITED`). */
export class PartnerApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly requestId: string | undefined;
  /** From the body, or (on the rate limit's 429) from the Retry-After-partner header. */
  readonly retryAfterSeconds: number | undefined;
  readonly errorCode: string | undefined;
  /** Fields named by a validation failure, in the order the server gave them. */
  readonly fields: string[];
  readonly body: unknown;

  constructor(status: number, body: unknown, headers: { get(name: string): string | null }) {
    const envelope = (body && typeof body === 'object' ? body : {}) as Partial<ErrorEnvelope>;
    const message = typeof envelope.message === 'string' ? envelope.message : `HTTP ${status}`;
    super(message);
    this.name = 'PartnerApiError';
    this.status = status;
    this.body = body;
    this.requestId =
      typeof envelope.requestId === 'string' ? envelope.requestId : (headers.get('x-request-id') ?? undefined);
    this.errorCode = typeof envelope.errorCode === 'string' ? envelope.errorCode : undefined;
    this.fields = message.startsWith(VALIDATION_PREFIX) ? message.slice(VALIDATION_PREFIX.length).split(', ') : [];
    this.code = codeOf(status, message);
    this.retryAfterSeconds =
      typeof envelope.retryAfterSeconds === 'number' ? envelope.retryAfterSeconds : retryAfterHeader(headers);
  }
}

function codeOf(status: number, message: string): string {
  if (message.startsWith(VALIDATION_PREFIX)) return 'VALIDATION_FAILED';
  if (status === 401) return 'UNAUTHORIZED';
  if (status === 429 && message === 'Too Many Requests') return 'RATE_LIMITED';
  return message;
}

/** Whole seconds from Retry-After-partner (preferred) or Retry-After; undefined when absent or not a number. */
export function retryAfterHeader(headers: { get(name: string): string | null }): number | undefined {
  const raw = headers.get('retry-after-partner') ?? headers.get('retry-after');
  if (raw === null || !/^\d{1,6}$/.test(raw.trim())) return undefined;
  return Number(raw.trim());
}

export function isPartnerApiError(error: unknown): error is PartnerApiError {
  return error instanceof PartnerApiError;
}

/** Why a webhook delivery was refused; answer it with a 4xx and do not process it. */
export type WebhookRefusal = 'missing_header' | 'stale_timestamp' | 'bad_signature' | 'malformed_body';

export class WebhookVerificationError extends Error {
  readonly reason: WebhookRefusal;

  constructor(reason: WebhookRefusal, detail: string) {
    super(`webhook refused (${reason}): ${detail}`);
    this.name = 'WebhookVerificationError';
    this.reason = reason;
  }
}
