// Proves the OpenAPI document (libs/openapi) and the running gateway agree:
// - every route the /v1 router registers (read from the router itself) is
//   documented, and every documented route is served (both hold by
//   construction, the router being registered from the operation table; this
//   guards against a route added beside the table). The scope each route needs
//   is the table's own and is no longer compared here: app.spec.ts proves the
//   router enforces it, libs/openapi/src/operations.spec.ts that it follows the
//   credential-scope rules;
// - every documented, served route answers on the running stack: a signed call
//   with a dummy id and an empty body gets a documented refusal (400, or the
//   route's own 404 like ORDER_NOT_FOUND), never the router's catch-all
//   404 NOT_FOUND (every answer is also validated against the document by
//   PartnerHttpClient);
// - /openapi.json and /docs are served without authentication, cached
//   sensibly (ETag, 304) and carry X-Request-Id.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { OPENAPI_JSON_FILE, OPERATION_LIST, REFERENCE_HTML_FILE } from '@platform/openapi';
import { createTestPartner, loadTestStack, PartnerHttpClient } from '@platform/testing';
import { servedRoutes } from '../src/http/routes/route-table';
import { createV1Router } from '../src/http/routes/v1.router';
import type { AppDependencies } from '../src/http/dependencies';

/** Route handlers are factories over their dependencies; none touches them while being registered. */
function inertDependencies(): AppDependencies {
  const inert: unknown = new Proxy(() => inert, {
    get: (_target, key) => (key === 'mode' ? 'sandbox' : inert),
    apply: () => inert,
  });
  return inert as AppDependencies;
}

/** `get /v1/orders/{}`: parameter names may differ between the router and the document. */
const routeKey = (method: string, path: string) => `${method.toLowerCase()} ${path.replace(/\{[^}]+\}/g, '{}')}`;

const served = servedRoutes(createV1Router(inertDependencies()), '/v1');
const servedKeys = new Set(served.map((route) => routeKey(route.method, route.path)));
const documented = OPERATION_LIST.map((operation) => ({
  ...operation,
  key: routeKey(operation.method, operation.path),
}));
const documentedKeys = new Set(documented.map((operation) => operation.key));

/** A dummy id in every parameter, a body that fails validation, so nothing is created. */
function probePath(path: string): string {
  return path.replace(/\{[^}]+\}/g, randomUUID());
}

let client: PartnerHttpClient;

beforeAll(async () => {
  client = new PartnerHttpClient(await createTestPartner());
});

describe('OpenAPI conformance: the router', () => {
  it('documents every route the gateway serves', () => {
    const undocumented = [...servedKeys].filter((key) => !documentedKeys.has(key));
    expect(undocumented).toEqual([]);
  });

  it('serves every documented route', () => {
    const missing = documented.filter((operation) => !servedKeys.has(operation.key)).map((operation) => operation.key);
    expect(missing).toEqual([]);
  });
});

describe('OpenAPI conformance: the running gateway', () => {
  const probes = documented.filter((operation) => servedKeys.has(operation.key));

  it.each(probes.map((operation) => [operation.key, operation] as const))(
    '%s answers (not the catch-all 404)',
    async (_key, operation) => {
      const body = operation.request ? {} : undefined;
      const answer = await client.request(operation.method.toUpperCase(), probePath(operation.path), body);
      expect(answer.headers.get('x-request-id')).toBeTruthy();
      expect({ status: answer.status, message: answer.body?.message }).not.toEqual({
        status: 404,
        message: 'NOT_FOUND',
      });
    },
  );
});

describe('OpenAPI conformance: the reference', () => {
  const gatewayUrl = () => loadTestStack().gatewayUrl;

  it('serves /openapi.json unauthenticated, equal to the committed document, with caching headers', async () => {
    const response = await fetch(`${gatewayUrl()}/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('x-request-id')).toBeTruthy();
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    expect(await response.json()).toEqual(JSON.parse(readFileSync(OPENAPI_JSON_FILE, 'utf8')));
    const etag = response.headers.get('etag');
    expect(etag).toMatch(/^".+"$/);
    const revalidated = await fetch(`${gatewayUrl()}/openapi.json`, { headers: { 'If-None-Match': etag! } });
    expect(revalidated.status).toBe(304);
  });

  it('serves /docs as one self-contained page rendered at build time, which may reach nothing but the gateway', async () => {
    const page = await fetch(`${gatewayUrl()}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('x-request-id')).toBeTruthy();
    const policy = page.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("connect-src 'self'");
    expect(policy).not.toMatch(/https?:/);
    const html = await page.text();
    expect(html).toEqual(readFileSync(REFERENCE_HTML_FILE, 'utf8'));
    // The document is inlined and rendered: operations appear without loading anything.
    expect(html).toContain('Quote a buy or a sell');
    expect(html).not.toMatch(/<script[^>]+src=/);
    expect(html).not.toMatch(/<link[^>]+href="https?:/);
    const etag = page.headers.get('etag');
    expect((await fetch(`${gatewayUrl()}/docs`, { headers: { 'If-None-Match': etag! } })).status).toBe(304);
    expect((await fetch(`${gatewayUrl()}/docs/redoc.standalone.js`)).status).toBe(404);
  });

  it('keeps other paths outside /v1 a 404 envelope', async () => {
    const response = await fetch(`${gatewayUrl()}/docs/`);
    expect(response.status).toBe(404);
    expect(((await response.json()) as { message: string }).message).toBe('NOT_FOUND');
  });
});
