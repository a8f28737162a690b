/**
 * The transport: signs every attempt afresh, retries what is safe to retry
 * (retry.ts), and turns non-2xx answers into PartnerApiError. `send` never
 * throws on an HTTP status (tests and tools read raw answers); `call` does.
 */
import { PartnerApiError } from './errors';
import {
  AttemptOutcome,
  DEFAULT_RETRY_OPTIONS,
  nextRetryDelayMs,
  RetryOptions,
  RetrySafety,
  retrySafetyOf,
} from './retry';
import { Credentials, signRequestHeaders } from './signing';

export const DEFAULT_TIMEOUT_MS = 30_000;

export interface PartnerClientOptions extends Credentials {
  /** e.g. `http://127.0.0.1:8080` (no trailing slash needed). */
  baseUrl: string;
  /** Retry tuning, or false to never retry. */
  retry?: Partial<RetryOptions> | false;
  /** Per attempt. */
  timeoutMs?: number;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  /** Called after every attempt's answer (logging, metrics, response validation in tests). */
  onResponse?: (response: RawResponse) => void;
}

export interface SendOptions {
  query?: Record<string, string | number | undefined>;
  /** JSON-encoded as the body. */
  body?: unknown;
  /** This exact body text instead of `body`. */
  rawBody?: string;
  headers?: Record<string, string>;
  /** false sends no signature headers at all. */
  sign?: boolean;
  /** Last look at the headers before sending (after signing). */
  transformHeaders?: (headers: Record<string, string>) => Record<string, string>;
  /** Overrides the safety derived from the method and body. */
  retrySafety?: RetrySafety;
  /** false: this request is sent once. */
  retry?: boolean;
}

export interface RawResponse<T = unknown> {
  method: string;
  pathAndQuery: string;
  status: number;
  headers: Headers;
  body: T;
  text: string;
  requestId: string | undefined;
  attempts: number;
}

/** Response facts attached (non-enumerable) to what typed methods return. */
export interface ResponseMeta {
  status: number;
  requestId: string | undefined;
  headers: Headers;
  /** True when the server answered a repeated create with the original (`Idempotent-Replayed: true`). */
  replayed: boolean;
}
export type WithMeta<T> = T & { readonly $response: ResponseMeta };

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function buildPathAndQuery(path: string, query?: SendOptions['query']): string {
  if (!query) return path;
  const parts = Object.entries(query)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`);
  return parts.length === 0 ? path : `${path}?${parts.join('&')}`;
}

function parseBody(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function outcomeOf(response: RawResponse): AttemptOutcome {
  if (response.status < 400) return { kind: 'response', status: response.status };
  const error = new PartnerApiError(response.status, response.body, response.headers);
  return { kind: 'response', status: response.status, code: error.code, retryAfterSeconds: error.retryAfterSeconds };
}

export class PartnerTransport {
  readonly baseUrl: string;
  private readonly retryOptions: RetryOptions | null;
  private readonly fetchImpl: typeof fetch;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: PartnerClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.retryOptions = options.retry === false ? null : { ...DEFAULT_RETRY_OPTIONS, ...options.retry };
    this.fetchImpl = options.fetch ?? fetch;
    this.sleep = options.sleep ?? defaultSleep;
  }

  /** One request with its retries; resolves with the last answer whatever its status. */
  async send<T = unknown>(method: string, path: string, options: SendOptions = {}): Promise<RawResponse<T>> {
    const pathAndQuery = buildPathAndQuery(path, options.query);
    const text = options.rawBody ?? (options.body === undefined ? '' : JSON.stringify(options.body));
    const safety = options.retrySafety ?? retrySafetyOf(method, options.body);
    const retry = options.retry === false ? null : this.retryOptions;
    for (let attempt = 1; ; attempt += 1) {
      let response: RawResponse<T>;
      try {
        response = await this.attempt<T>(method.toUpperCase(), pathAndQuery, text, options, attempt);
      } catch (error) {
        const delayMs = retry ? nextRetryDelayMs({ kind: 'network' }, safety, attempt, retry) : null;
        if (delayMs === null) throw error;
        await this.sleep(delayMs);
        continue;
      }
      this.options.onResponse?.(response as RawResponse);
      const delayMs = retry ? nextRetryDelayMs(outcomeOf(response as RawResponse), safety, attempt, retry) : null;
      if (delayMs === null) return response;
      await this.sleep(delayMs);
    }
  }

  /** Like send, but a non-2xx answer throws PartnerApiError. */
  async call<T>(method: string, path: string, options: SendOptions = {}): Promise<RawResponse<T>> {
    const response = await this.send<T>(method, path, options);
    if (response.status >= 400) throw new PartnerApiError(response.status, response.body, response.headers);
    return response;
  }

  private async attempt<T>(
    method: string,
    pathAndQuery: string,
    text: string,
    options: SendOptions,
    attempts: number,
  ): Promise<RawResponse<T>> {
    let headers: Record<string, string> =
      options.sign === false ? {} : signRequestHeaders(this.options, { method, pathAndQuery, body: text });
    if (text) headers['Content-Type'] = 'application/json';
    headers = { ...headers, ...options.headers };
    if (options.transformHeaders) headers = options.transformHeaders(headers);
    const response = await this.fetchImpl(`${this.baseUrl}${pathAndQuery}`, {
      method,
      headers,
      body: text || undefined,
      signal: AbortSignal.timeout(this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    });
    const responseText = await response.text();
    return {
      method,
      pathAndQuery,
      status: response.status,
      headers: response.headers,
      body: parseBody(responseText) as T,
      text: responseText,
      requestId: response.headers.get('x-request-id') ?? undefined,
      attempts,
    };
  }
}

/** The body with its response facts attached, non-enumerable so JSON.stringify and deep equality ignore them. */
export function withMeta<T>(response: RawResponse<T>): WithMeta<T> {
  const meta: ResponseMeta = {
    status: response.status,
    requestId: response.requestId,
    headers: response.headers,
    replayed: response.headers.get('idempotent-replayed') === 'true',
  };
  const body = (response.body ?? {}) as T;
  Object.defineProperty(body, '$response', { value: meta, enumerable: false });
  return body as WithMeta<T>;
}
