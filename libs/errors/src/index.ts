/**
 * Typed, expected refusals. A use case throws `new AppError('QUOTE_NOT_FOUND')`;
 * the gRPC layer carries the code across services and the gateway maps it to
 * the HTTP envelope in one place. Anything that is not an AppError is a bug
 * and answers INTERNAL_ERROR without revealing its message.
 */
import { ERROR_CATALOGUE, ErrorCode, isErrorCode } from './catalogue';

export { ERROR_CATALOGUE, isErrorCode };
export type { ErrorCode, ErrorDefinition } from './catalogue';

export interface AppErrorOptions {
  /** Field names for VALIDATION_FAILED, in the order they appear in the request. */
  fields?: string[];
  retryAfterSeconds?: number;
  /** Finer, non-branching code shown to partners as `errorCode`. */
  errorCode?: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly fields?: string[];
  readonly retryAfterSeconds?: number;
  readonly errorCode?: string;

  constructor(code: ErrorCode, options: AppErrorOptions = {}) {
    super(code === 'VALIDATION_FAILED' && options.fields ? validationMessage(options.fields) : code);
    this.name = 'AppError';
    this.code = code;
    this.fields = options.fields;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.errorCode = options.errorCode;
  }

  get httpStatus(): number {
    return ERROR_CATALOGUE[this.code].httpStatus;
  }

  /** The envelope's `message`: the stable code, or the validation sentence. */
  get partnerMessage(): string {
    return this.code === 'VALIDATION_FAILED' ? validationMessage(this.fields ?? []) : this.code;
  }
}

export function validationFailed(fields: string[]): AppError {
  return new AppError('VALIDATION_FAILED', { fields: [...new Set(fields)] });
}

export function validationMessage(fields: string[]): string {
  return `Validation failed on: ${fields.map(displayFieldName).join(', ')}`;
}

/** Field names we define, and the dotted or indexed paths into them. */
const PLAIN_FIELD_NAME = /^[A-Za-z0-9_.$[\]-]{1,64}$/;
const DISPLAYED_NAME_CHARS_MAX = 32;

/**
 * A refused field can be a name the partner made up (an unknown query key or body
 * property). Plain names are echoed as sent; any other is shown as an escaped, ASCII-only
 * JSON string, so control, line-separator and other hostile characters never reach the
 * response (or a log line made from it) while the partner can still see which key it was.
 */
function displayFieldName(name: string): string {
  if (PLAIN_FIELD_NAME.test(name)) return name;
  const quoted = JSON.stringify([...name].slice(0, DISPLAYED_NAME_CHARS_MAX).join(''));
  return quoted.replace(/[^\x20-\x7e]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/** Serialisable form carried in gRPC metadata. */
export interface ErrorPayload {
  code: ErrorCode;
  fields?: string[];
  retryAfterSeconds?: number;
  errorCode?: string;
}

export function toPayload(error: AppError): ErrorPayload {
  return {
    code: error.code,
    fields: error.fields,
    retryAfterSeconds: error.retryAfterSeconds,
    errorCode: error.errorCode,
  };
}

export function fromPayload(payload: unknown): AppError | null {
  if (!payload || typeof payload !== 'object') return null;
  const { code, fields, retryAfterSeconds, errorCode } = payload as Record<string, unknown>;
  if (!isErrorCode(code)) return null;
  return new AppError(code, {
    fields: Array.isArray(fields) ? fields.filter((f): f is string => typeof f === 'string') : undefined,
    retryAfterSeconds: typeof retryAfterSeconds === 'number' ? retryAfterSeconds : undefined,
    errorCode: typeof errorCode === 'string' ? errorCode : undefined,
  });
}

/** HTTP reason phrases used as the envelope's `error`. */
export const HTTP_REASON: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  413: 'Payload Too Large',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};
