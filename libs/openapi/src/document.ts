/**
 * Builds the OpenAPI 3.1 document of the partner plane from the operation
 * table (operations.ts: paths, scopes, request schemas in zod, answers), the
 * response schemas, the webhook events and the error catalogue (@platform/errors:
 * codes and statuses are never restated here). The result is committed as
 * libs/openapi/openapi.json (`npm run generate -w @platform/openapi`); a unit
 * test fails when the committed file is stale.
 */
import { ERROR_CATALOGUE, ErrorCode, HTTP_REASON as ENVELOPE_ERROR } from '@platform/errors';
import type { ZodTypeAny } from 'zod';
import { pathParameterNames } from './contract/operation';
import { parameterSchema, requestComponents } from './json-schema';
import { COMMON_ERROR_CODES, Operation, OPERATION_LIST } from './operations';
import { eventSchemas } from './event-schemas';
import { componentSchemas, ref } from './schemas';
import { webhookPaths } from './webhooks';

/**
 * The reason phrase that opens each error response's description: the envelope's `error` for that status, but
 * 401 by its standard phrase (the envelope's lower-case `unauthorized` is a value on the wire, not prose).
 */
const HTTP_REASON: Readonly<Record<number, string>> = { ...ENVELOPE_ERROR, 401: 'Unauthorized' };

/** Codes a partner can receive: the catalogue minus the internal refusals between services. */
export function partnerErrorCodes(): ErrorCode[] {
  return (Object.keys(ERROR_CATALOGUE) as ErrorCode[]).filter(
    (code) => !ERROR_CATALOGUE[code].description.startsWith('Internal'),
  );
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
  "- Every answer to a signed request carries `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (the IETF draft's names).",
  '- This document is served by the gateway at `/openapi.json` and rendered at `/docs`, without authentication or rate limit.',
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
  ['Wallets', "Withdrawal addresses: an administrator's code, then the service's review"],
  ['Transfers', 'KES out, single and batch, each confirmed by code'],
  ['USDT sends', 'USDT out to an active wallet, confirmed by code'],
  ['Confirmations', 'Codes confirming transfers, batches and sends'],
  ['Collections', 'USD collections: a reference plus a dedicated deposit account'],
  ['Sandbox', 'Sandbox mode only: the simulated outside world (404 in production)'],
  [
    'Webhooks',
    "Signed events the service POSTs to the partner's endpoint; the events feed to catch up; your deliveries and their retry",
  ],
];

const SECURITY_REQUIREMENT = [{ ServiceKey: [], ServiceTimestamp: [], ServiceNonce: [], ServiceSignature: [] }];

/** Headers on every answer to a signed request: the rate-limit state after this request was counted. */
const RATE_LIMIT_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];

function responseHeaders(names: string[] = []): Record<string, unknown> {
  const headers: Record<string, unknown> = { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } };
  for (const name of names) headers[name] = { $ref: `#/components/headers/${name}` };
  return headers;
}

function schemaOf(name: string): Record<string, unknown> {
  return name.endsWith('[]') ? { type: 'array', maxItems: ARRAY_ITEMS_MAX, items: ref(name.slice(0, -2)) } : ref(name);
}

/** Lists answer at most this many items (a collections page is at most 100, the outbox 100; balances and the rest are far fewer). */
export const ARRAY_ITEMS_MAX = 100;

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
      headers: responseHeaders([
        ...RATE_LIMIT_HEADERS,
        ...(status === 429 ? ['Retry-After-partner', 'Retry-After'] : []),
      ]),
      content: { 'application/json': { schema: ref('ErrorEnvelope') } },
      'x-error-codes': list,
    };
  }
  return responses;
}

function pathParameters(operation: Operation): Array<Record<string, unknown>> {
  return pathParameterNames(operation.path).map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: ref('Uuid'),
    description: `The resource's id (a UUID); one that names nothing of yours answers 404 \`${operation.notFound ?? 'NOT_FOUND'}\``,
  }));
}

function queryParameters(query: Operation['query']): Array<Record<string, unknown>> {
  if (!query) return [];
  return Object.entries(query.shape as Record<string, ZodTypeAny>).map(([name, field]) => {
    const { schema, required, description } = parameterSchema(field);
    return { name, in: 'query', required, ...(description ? { description } : {}), schema };
  });
}

function operationObject(operation: Operation): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const [status, answer] of Object.entries(operation.success)) {
    responses[status] = {
      description: answer.description,
      headers: responseHeaders([...RATE_LIMIT_HEADERS, ...(answer.headers ?? [])]),
      ...(answer.schema ? { content: { 'application/json': { schema: schemaOf(answer.schema) } } } : {}),
    };
  }
  const parameters = [
    ...pathParameters(operation),
    ...queryParameters(operation.query),
    { $ref: '#/components/parameters/X-Request-Id' },
  ];
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    description:
      operation.availability === 'sandbox'
        ? `${operation.description} Sandbox mode only (404 \`NOT_FOUND\` in production).`
        : operation.description,
    tags: [operation.tag],
    'x-required-scope': operation.scope,
    parameters,
    ...(operation.request
      ? { requestBody: { required: true, content: { 'application/json': { schema: ref(operation.request.name) } } } }
      : {}),
    responses: { ...responses, ...errorResponses(operation.errors) },
  };
}

const INTEGER_SECONDS = (description: string, maximum: number) => ({
  description,
  schema: { type: 'integer', format: 'int32', minimum: 0, maximum },
});

function headerComponents(): Record<string, unknown> {
  return {
    'X-Request-Id': {
      description:
        'The request id (also `requestId` in error bodies): yours when you sent a valid `X-Request-Id`, else a UUID',
      schema: { type: 'string', maxLength: 64, pattern: '^[A-Za-z0-9._:-]{1,64}$' },
    },
    'Idempotent-Replayed': {
      description: '`true` when a repeated create answered with the original',
      schema: { type: 'string', enum: ['true'] },
    },
    'X-Next-Cursor': {
      description: 'Present when another page follows: pass it back as `cursor` with the same filters',
      schema: { type: 'string', maxLength: 200, pattern: '^[A-Za-z0-9_-]{1,200}$' },
    },
    'Retry-After-partner': INTEGER_SECONDS('Seconds to wait before retrying (1-60)', 60),
    'Retry-After': INTEGER_SECONDS('The same wait, as the standard header', 60),
    'RateLimit-Limit': {
      description:
        'Requests the partner may make per window (one minute), shared by all its credentials. On every answer to a signed request ' +
        'that was counted; absent on the uniform 401 (answered before the partner is known) and when the limit could not be read',
      schema: { type: 'integer', format: 'int32', minimum: 1, maximum: 100_000 },
    },
    'RateLimit-Remaining': {
      description: "Requests left in the current window after this one (0 on the rate limit's 429)",
      schema: { type: 'integer', format: 'int32', minimum: 0, maximum: 100_000 },
    },
    'RateLimit-Reset': INTEGER_SECONDS(
      'Seconds (1-60) until the oldest request counted in the rolling minute leaves it and a request is free again',
      60,
    ),
  };
}

function securitySchemes(): Record<string, unknown> {
  const header = (name: string, description: string) => ({ type: 'apiKey', in: 'header', name, description });
  return {
    ServiceKey: header('X-Service-Key', `The credential's API key. ${SIGNING_DESCRIPTION}`),
    ServiceTimestamp: header(
      'X-Service-Timestamp',
      'Unix milliseconds when the request was signed (within 300 000 ms of the server clock)',
    ),
    ServiceNonce: header('X-Service-Nonce', '16-128 of [A-Za-z0-9_-], single use per key'),
    ServiceSignature: header(
      'X-Service-Signature',
      '`v1=` and the lowercase hex HMAC-SHA256 of the six-line signed string (see ServiceKey)',
    ),
  };
}

function parameterComponents(): Record<string, unknown> {
  return {
    'X-Request-Id': {
      name: 'X-Request-Id',
      in: 'header',
      required: false,
      description:
        'Your own request id, kept and echoed when it is 1-64 of `A-Z a-z 0-9 . _ : -` (otherwise a UUID is made)',
      schema: { type: 'string', maxLength: 64, pattern: '^[A-Za-z0-9._:-]{1,64}$' },
    },
  };
}

/** Request bodies as components, each with its cross-field rule stated in JSON Schema where it has one. */
function requestBodyComponents(): Record<string, unknown> {
  const bodies = Object.fromEntries(
    OPERATION_LIST.flatMap((operation) =>
      operation.request ? [[operation.request.name, operation.request.schema]] : [],
    ),
  );
  const components = requestComponents(bodies);
  for (const operation of OPERATION_LIST) {
    const request = operation.request;
    if (request?.crossFieldSchema)
      components[request.name] = { ...components[request.name], ...request.crossFieldSchema };
  }
  return components;
}

/** Hosts are the deployment's (given with the credentials); the defaults are the ingress names of the sample deployment. */
const SERVERS = [
  {
    url: 'https://{sandboxHost}',
    description:
      'Sandbox: the simulated outside world (bank, chain, USD rails, rate feed, e-mail) and the /v1/sandbox helpers. Audience: partners ' +
      '(external), integrating. Locally, `npm start` serves the same sandbox on http://127.0.0.1:8080 (loopback only).',
    'x-internal': false,
    variables: {
      sandboxHost: {
        default: 'sandbox.api.example.com',
        description: "The sandbox gateway's host, given with sandbox credentials",
      },
    },
  },
  {
    url: 'https://{productionHost}',
    description:
      'Production: real money. Audience: partners (external), with production credentials. The /v1/sandbox helpers answer 404 here.',
    'x-internal': false,
    variables: {
      productionHost: {
        default: 'api.example.com',
        description: "The production gateway's host, given with production credentials",
      },
    },
  },
];

export function buildOpenApiDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of OPERATION_LIST) {
    paths[operation.path] ??= {};
    paths[operation.path][operation.method] = operationObject(operation);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Partner API',
      version: '1.0.0',
      description: INFO_DESCRIPTION,
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      contact: { name: 'Partner support' },
    },
    servers: SERVERS,
    security: SECURITY_REQUIREMENT,
    tags: TAGS.map(([name, description]) => ({ name, description })),
    paths,
    webhooks: webhookPaths(),
    components: {
      schemas: { ...componentSchemas(partnerErrorCodes()), ...eventSchemas(), ...requestBodyComponents() },
      headers: headerComponents(),
      parameters: parameterComponents(),
      securitySchemes: securitySchemes(),
    },
  };
}

/** The committed file's text for the document: stable key order, two-space indent, trailing newline. */
export function renderOpenApiJson(): string {
  return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
}
