/**
 * Builds the OpenAPI 3.1 document of the partner plane from the route table
 * (operations.ts), the schemas, the webhook events and the error catalogue
 * (@platform/errors: codes and statuses are never restated here). The result
 * is committed as libs/openapi/openapi.json (`npm run generate -w @platform/openapi`);
 * a unit test fails when the committed file is stale.
 */
import { ERROR_CATALOGUE, ErrorCode } from '@platform/errors';
import { COMMON_ERROR_CODES, OPERATIONS, OperationSpec } from './operations';
import { componentSchemas, ref } from './schemas';
import { webhookPaths } from './webhooks';

const HTTP_REASON: Record<number, string> = {
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 409: 'Conflict', 413: 'Payload Too Large',
  422: 'Unprocessable Entity', 429: 'Too Many Requests', 500: 'Internal Server Error', 503: 'Service Unavailable',
};

/** Codes a partner can receive: the catalogue minus the internal refusals between services. */
export function partnerErrorCodes(): ErrorCode[] {
  return (Object.keys(ERROR_CATALOGUE) as ErrorCode[]).filter((code) => !ERROR_CATALOGUE[code].description.startsWith('Internal'));
}

const SIGNING_DESCRIPTION = [
  'Every `/v1` request carries four headers: `X-Service-Key` (the API key), `X-Service-Timestamp` (Unix milliseconds),',
  '`X-Service-Nonce` (16-128 of `[A-Za-z0-9_-]`, single use) and `X-Service-Signature: v1=<lowercase hex HMAC-SHA256>`.',
  'The HMAC key is the signing secret (UTF-8). The signed string is six lines joined by `\\n`, no trailing newline:',
  '',
  '```',
  'v1',
  '<X-Service-Timestamp>',
  '<X-Service-Nonce>',
  '<HTTP method, upper case>',
  '<path and query exactly as sent, e.g. /v1/collections?status=open>',
  '<lowercase hex SHA-256 of the raw body bytes; of the empty string when there is none>',
  '```',
  '',
  'The timestamp must be within 300 000 ms of the server clock; a nonce is single-use per key. Every authentication failure answers',
  'the same 401 `{"statusCode":401,"message":"An error occurred","error":"unauthorized","requestId":"…"}`.',
  'Credentials carry scopes (`read`, `trade`, `payouts`, `wallets`, `funding`, `collections`, `sandbox`); each operation names its own in',
  '`x-required-scope`, and a credential without it answers 403 `INSUFFICIENT_SCOPE`. The rate limit (120 requests per minute per partner by',
  'default, shared by all its credentials) answers 429 with the wait in `Retry-After-partner` and `Retry-After`.',
].join('\n');

const INFO_DESCRIPTION = [
  'The partner plane: trade USDT against KES, hold KES, USDT and USD balances, pay out, collect USD, and learn of every change by signed webhook.',
  '',
  '- Money is a decimal string, never a JSON number: KES 2 decimals, USDT 6, USD 2, rates 4.',
  '- Ids are UUIDs; timestamps ISO 8601 UTC with milliseconds.',
  '- Every failure is `{statusCode, message, error, requestId}` (plus `errorCode`, `retryAfterSeconds` on some); branch on `message`.',
  '- Every response carries `X-Request-Id` (a partner-supplied one of at most 64 `[A-Za-z0-9._:-]` is kept).',
  '- Additive changes (new fields, new event types) come without a new version: ignore what you do not know.',
  '',
  '## Signing',
  '',
  SIGNING_DESCRIPTION,
].join('\n');

const TAGS: Array<[string, string]> = [
  ['Service', 'Health of the partner plane'],
  ['Quotes', 'Single-use, time-limited prices from a live rate'],
  ['Orders', 'Buy and sell USDT against KES; settlement is signalled by webhook'],
  ['Balances and funding', 'Balances, funding instructions, mobile-money prompts, payout destinations'],
  ['Administrators', 'The people who receive approval and confirmation codes'],
  ['Wallets', 'Withdrawal addresses: an administrator\'s code, then the service\'s review'],
  ['Transfers', 'KES out, single and batch, each confirmed by code'],
  ['USDT sends', 'USDT out to an active wallet, confirmed by code'],
  ['Confirmations', 'Codes confirming transfers, batches and sends'],
  ['Collections', 'USD collections: a reference plus a dedicated deposit account'],
  ['Sandbox', 'Sandbox mode only: the simulated outside world (404 in production)'],
  ['Reference', 'This document, unauthenticated'],
  ['Webhooks', 'Signed events the service POSTs to the partner\'s endpoint'],
];

const SECURITY_REQUIREMENT = [{ ServiceKey: [], ServiceTimestamp: [], ServiceNonce: [], ServiceSignature: [] }];

function responseHeaders(names: string[] = []): Record<string, unknown> {
  const headers: Record<string, unknown> = { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } };
  for (const name of names) headers[name] = { $ref: `#/components/headers/${name}` };
  return headers;
}

function schemaOf(name: string): Record<string, unknown> {
  return name.endsWith('[]') ? { type: 'array', items: ref(name.slice(0, -2)) } : ref(name);
}

/** The refusals of one operation, one response per status, each listing its codes. */
function errorResponses(codes: ErrorCode[]): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of [...COMMON_ERROR_CODES, ...codes]) {
    const status = ERROR_CATALOGUE[code].httpStatus;
    const list = byStatus.get(status) ?? [];
    if (!list.includes(code)) list.push(code);
    byStatus.set(status, list);
  }
  const responses: Record<string, unknown> = {};
  for (const status of [...byStatus.keys()].sort()) {
    const list = byStatus.get(status)!;
    responses[String(status)] = {
      description: `${HTTP_REASON[status] ?? 'Error'}: ${list.map((code) => `\`${code}\``).join(', ')}`,
      headers: responseHeaders(status === 429 ? ['Retry-After-partner', 'Retry-After'] : []),
      content: { 'application/json': { schema: ref('ErrorEnvelope') } },
      'x-error-codes': list,
    };
  }
  return responses;
}

function pathParameters(path: string): Array<Record<string, unknown>> {
  return [...path.matchAll(/\{([A-Za-z]+)\}/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
}

function operationObject(spec: OperationSpec): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const [status, answer] of Object.entries(spec.success)) {
    responses[status] = {
      description: answer.description,
      headers: responseHeaders(answer.headers),
      ...(answer.schema ? { content: { 'application/json': { schema: schemaOf(answer.schema) } } } : {}),
    };
  }
  const parameters = [
    ...pathParameters(spec.path),
    ...(spec.query ?? []).map((query) => ({ in: 'query', required: false, ...query })),
  ];
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    tags: [spec.tag],
    'x-required-scope': spec.scope,
    ...(parameters.length ? { parameters } : {}),
    ...(spec.requestSchema ? { requestBody: { required: true, content: { 'application/json': { schema: ref(spec.requestSchema) } } } } : {}),
    responses: { ...responses, ...errorResponses(spec.errors) },
  };
}

function referencePaths(): Record<string, unknown> {
  const unauthenticated = (operationId: string, summary: string, contentType: string) => ({
    get: {
      operationId, summary, tags: ['Reference'], security: [],
      responses: {
        200: { description: summary, headers: responseHeaders(), content: { [contentType]: { schema: { type: contentType === 'text/html' ? 'string' : 'object' } } } },
        404: { description: 'Not Found: `NOT_FOUND` (another method)', headers: responseHeaders(), content: { 'application/json': { schema: ref('ErrorEnvelope') } } },
      },
    },
  });
  return {
    '/openapi.json': unauthenticated('getOpenApiDocument', 'This document (OpenAPI 3.1, JSON)', 'application/json'),
    '/docs': unauthenticated('getReferencePage', 'This document rendered as a page', 'text/html'),
  };
}

function headerComponents(): Record<string, unknown> {
  return {
    'X-Request-Id': { description: 'The request id (also `requestId` in error bodies)', schema: { type: 'string' } },
    'Idempotent-Replayed': { description: '`true` when a repeated create answered with the original', schema: { type: 'string', enum: ['true'] } },
    'X-Next-Cursor': { description: 'Present when another page follows: pass it back as `cursor` with the same filters', schema: { type: 'string' } },
    'Retry-After-partner': { description: 'Seconds to wait (1-60) before retrying', schema: { type: 'integer' } },
    'Retry-After': { description: 'The same wait, as the standard header', schema: { type: 'integer' } },
  };
}

function securitySchemes(): Record<string, unknown> {
  const header = (name: string, description: string) => ({ type: 'apiKey', in: 'header', name, description });
  return {
    ServiceKey: header('X-Service-Key', `The credential's API key. ${SIGNING_DESCRIPTION}`),
    ServiceTimestamp: header('X-Service-Timestamp', 'Unix milliseconds when the request was signed (within 300 000 ms of the server clock)'),
    ServiceNonce: header('X-Service-Nonce', '16-128 of [A-Za-z0-9_-], single use per key'),
    ServiceSignature: header('X-Service-Signature', '`v1=` and the lowercase hex HMAC-SHA256 of the six-line signed string (see ServiceKey)'),
  };
}

export function buildOpenApiDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const spec of OPERATIONS) {
    paths[spec.path] ??= {};
    paths[spec.path][spec.method] = operationObject(spec);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Partner API', version: '1.0.0', description: INFO_DESCRIPTION,
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      contact: { name: 'Partner support' },
    },
    servers: [{ url: 'http://127.0.0.1:8080', description: 'Local sandbox (`npm start`)' }],
    security: SECURITY_REQUIREMENT,
    tags: TAGS.map(([name, description]) => ({ name, description })),
    paths: { ...paths, ...referencePaths() },
    webhooks: webhookPaths(),
    components: {
      schemas: componentSchemas(partnerErrorCodes()),
      headers: headerComponents(),
      securitySchemes: securitySchemes(),
    },
  };
}

/** The committed file's text for the document: stable key order, two-space indent, trailing newline. */
export function renderOpenApiJson(): string {
  return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
}
