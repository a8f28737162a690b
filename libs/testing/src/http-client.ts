import { randomBytes } from 'node:crypto';
import { signedRequestHeaders } from '@platform/crypto';
import { recordOutboxCodes } from './sensitive';
import { loadTestStack } from './stack';

export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** Send this exact body text instead of JSON-encoding `body`. */
  rawBody?: string;
  /** Skip signing entirely (for 401 tests). */
  unsigned?: boolean;
  /** Adjust the signed headers before sending (for 401 tests). */
  tamper?: (headers: Record<string, string>) => Record<string, string>;
}

/** Signs requests exactly as contract decisions section 1 says, as a partner would. */
export class PartnerHttpClient {
  readonly baseUrl: string;

  constructor(private readonly credentials: { apiKey: string; signingSecret: string }, baseUrl?: string) {
    this.baseUrl = baseUrl ?? loadTestStack().gatewayUrl;
  }

  async request<T = any>(method: string, pathAndQuery: string, body?: unknown, options: RequestOptions = {}): Promise<HttpResult<T>> {
    const text = options.rawBody ?? (body === undefined ? '' : JSON.stringify(body));
    let headers: Record<string, string> = options.unsigned
      ? {}
      : signedRequestHeaders(this.credentials, { method, pathAndQuery, body: text, nonce: randomBytes(16).toString('hex') });
    if (text) headers['Content-Type'] = 'application/json';
    headers = { ...headers, ...options.headers };
    if (options.tamper) headers = options.tamper(headers);
    const response = await fetch(`${this.baseUrl}${pathAndQuery}`, { method, headers, body: text || undefined });
    const responseText = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = responseText ? JSON.parse(responseText) : undefined;
    } catch {
      parsed = undefined;
    }
    // The sandbox outbox is where tests read approval codes; the log scan looks for every one of them.
    if (pathAndQuery.startsWith('/v1/sandbox/outbox') && response.ok) recordOutboxCodes(parsed);
    return { status: response.status, headers: response.headers, body: parsed as T, text: responseText };
  }

  get<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('GET', path, undefined, options);
  }

  post<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('POST', path, body, options);
  }
}
