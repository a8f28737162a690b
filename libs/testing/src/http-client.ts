import { PartnerClient, RawResponse } from '@platform/sdk';
import { assertConformsToOpenApi } from './openapi-validator';
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

/** Every answer a test sees is checked against the OpenAPI document; the sandbox outbox's codes are recorded for the log scan. */
function inspect(response: RawResponse): void {
  // The sandbox outbox is where tests read approval codes; the log scan looks for every one of them.
  if (response.pathAndQuery.startsWith('/v1/sandbox/outbox') && response.status < 300) recordOutboxCodes(response.body);
  assertConformsToOpenApi({
    method: response.method,
    pathAndQuery: response.pathAndQuery,
    status: response.status,
    contentType: response.headers.get('content-type'),
    body: response.body,
    text: response.text,
  });
}

/**
 * Signs requests exactly as docs/getting-started.md says, as a partner
 * would, through the partner SDK (@platform/sdk). `request` answers raw (any
 * status); `sdk` is the typed client for the same partner (it throws
 * PartnerApiError on refusals). Neither retries: tests see every answer.
 */
export class PartnerHttpClient {
  readonly baseUrl: string;
  readonly sdk: PartnerClient;

  constructor(credentials: { apiKey: string; signingSecret: string }, baseUrl?: string) {
    this.baseUrl = baseUrl ?? loadTestStack().gatewayUrl;
    this.sdk = new PartnerClient({
      baseUrl: this.baseUrl,
      apiKey: credentials.apiKey,
      signingSecret: credentials.signingSecret,
      retry: false,
      onResponse: inspect,
    });
  }

  async request<T = any>(
    method: string,
    pathAndQuery: string,
    body?: unknown,
    options: RequestOptions = {},
  ): Promise<HttpResult<T>> {
    const response = await this.sdk.send<T>(method, pathAndQuery, {
      body,
      rawBody: options.rawBody,
      headers: options.headers,
      sign: !options.unsigned,
      transformHeaders: options.tamper,
    });
    return { status: response.status, headers: response.headers, body: response.body, text: response.text };
  }

  get<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('GET', path, undefined, options);
  }

  post<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('POST', path, body, options);
  }
}
