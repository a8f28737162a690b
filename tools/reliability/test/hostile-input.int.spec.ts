// Proves that hostile input never breaks the gateway or the services behind it:
// a property-based fuzzer (fast-check) sends, signed correctly, to every route in
// routes.ts: bodies with broken fields (wrong types, huge numbers, exponent
// notation, negative and zero amounts, too many decimals, very long strings,
// unicode and control characters), prototype-polluting and duplicate keys,
// malformed JSON, wrong content types and oversized bodies; hostile path ids and
// query strings. Every answer to a write is a documented 4xx envelope
// ({statusCode, message, error, requestId} = X-Request-Id), never a 5xx; reads
// answer 200 or such an envelope. Nothing is written: the partner's balances,
// wallets, administrators, outbox and destinations (API), and every row the
// stack's databases hold for the partner (read-only counts), are the same after
// each route's run as before.
// Reproduce a failure with the seed fast-check prints: FUZZ_SEED=<seed> npm test -- hostile-input
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { createTestPartner, PartnerHttpClient, TestPartner } from '@platform/testing';
import { hostileBody, hostileId, hostileQuery, wellFormed } from './hostile';
import { ID_ROUTES, ROUTES, RouteUnderTest, withId } from './routes';
import { expectDocumentedRefusal, expectEnvelope, partnerSnapshot, PartnerRows } from './support';

/** Per route and kind of attack; bounded so the whole spec stays well under two minutes. */
const BODY_RUNS_PER_ROUTE = 60;
const ID_RUNS_PER_ROUTE = 25;
const QUERY_RUNS_PER_ROUTE = 15;
const RATE_LIMIT_PER_MINUTE = 100_000;
const SPEC_TIMEOUT_MS = 120_000;
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;

/** Hostile writes are refused with one of these; a 401/403/429 would mean the attack never reached validation. */
const REFUSALS = [400, 404, 413];

let partner: TestPartner;
let client: PartnerHttpClient;
let rows: PartnerRows;
let adminDomain: string;

beforeAll(async () => {
  adminDomain = `fuzz-${randomUUID().slice(0, 8)}.example.com`;
  partner = await createTestPartner({ adminDomain, rateLimitPerMinute: RATE_LIMIT_PER_MINUTE });
  client = new PartnerHttpClient(partner);
  rows = new PartnerRows();
});

afterAll(async () => {
  await rows?.close();
});

function pathOf(route: RouteUnderTest): string {
  return withId(route.path, randomUUID());
}

/** Runs `property` for the route and proves the partner's state did not change. */
async function withoutWrites(run: () => Promise<void>): Promise<void> {
  const before = await partnerSnapshot(client, rows, partner.partnerId);
  await run();
  expect(await partnerSnapshot(client, rows, partner.partnerId)).toEqual(before);
}

const params = (numRuns: number) => ({ numRuns, seed, endOnFailure: true });

const bodyRoutes = ROUTES.filter((route) => route.body);

describe('hostile bodies', () => {
  it.each(bodyRoutes.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s refuses them with a 4xx envelope and writes nothing',
    async (_name, route) => {
      await withoutWrites(() =>
        fc.assert(
          fc.asyncProperty(hostileBody(route, adminDomain), async (body) => {
            const result = await client.request(route.method, pathOf(route), undefined, {
              rawBody: body.text,
              headers: { 'Content-Type': body.contentType },
            });
            expectDocumentedRefusal(result, `${route.method} ${route.path} with ${body.what}`, [
              ...REFUSALS,
              ...(route.alsoAllowed ?? []),
            ]);
            if (body.what.startsWith('oversized')) expect(result.status).toBe(413);
          }),
          params(BODY_RUNS_PER_ROUTE),
        ),
      );
    },
    SPEC_TIMEOUT_MS,
  );
});

describe('hostile path ids', () => {
  it.each(ID_ROUTES.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s answers 404 for any id naming nothing',
    async (_name, route) => {
      const body = route.body
        ? JSON.stringify(Object.fromEntries(Object.entries(route.body).map(([key, spec]) => [key, spec.valid()])))
        : undefined;
      await withoutWrites(() =>
        fc.assert(
          fc.asyncProperty(hostileId, async (id) => {
            const result = await client.request(
              route.method,
              withId(route.path, encodeURIComponent(wellFormed(id))),
              undefined,
              { rawBody: body },
            );
            expectDocumentedRefusal(
              result,
              `${route.method} ${route.path} with id ${JSON.stringify(id).slice(0, 80)}`,
              [404],
            );
            expect([route.notFound, 'NOT_FOUND']).toContain(result.body.message);
          }),
          params(ID_RUNS_PER_ROUTE),
        ),
      );
    },
    SPEC_TIMEOUT_MS,
  );
});

describe('hostile query strings', () => {
  it.each(ROUTES.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s never answers 5xx',
    async (_name, route) => {
      await withoutWrites(() =>
        fc.assert(
          fc.asyncProperty(hostileQuery, async (query) => {
            // Writes keep an invalid body, so whatever the query does they must refuse.
            const rawBody = route.body ? '{}' : undefined;
            const result = await client.request(route.method, `${pathOf(route)}${query}`, undefined, { rawBody });
            const context = `${route.method} ${route.path}${query.slice(0, 120)}`;
            if (route.method === 'GET' && result.status === 200) return;
            expectDocumentedRefusal(result, context, REFUSALS);
          }),
          params(QUERY_RUNS_PER_ROUTE),
        ),
      );
    },
    SPEC_TIMEOUT_MS,
  );
});

describe('after the fuzz', () => {
  it('the gateway still serves the partner normally (no polluted prototype)', async () => {
    const health = await client.get('/v1/health');
    expect(health.status).toBe(200);
    expect(health.text).not.toContain('polluted');
    const refused = await client.post('/v1/quotes', { side: 'hold' });
    expectEnvelope(refused, 'a plain validation refusal');
    expect(refused.body.message).toMatch(/^Validation failed on: side/);
  });
});
