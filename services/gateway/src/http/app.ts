/**
 * The partner-plane HTTP app. The pipeline, in order (README explains why):
 *   1. request id      X-Request-Id on every response; log context and trace span for the
 *                      rest; once answered, counted and timed by route template, method and
 *                      status, and one access-log line
 *   2. raw body        at most 64 KiB, kept as exact bytes (the signature covers them)
 *   3. /healthz, /docs, /openapi.json   unauthenticated: readiness and the API reference
 *   4. authenticate    /v1 only: signed headers, credential, signature, then the
 *                      nonce claim and rate-limit count (one Redis round trip)
 *   5. rate limit      per partner: RateLimit-* headers, 429 over the limit
 *   6. scope           per route
 *   7. body            JSON object + zod, inside each route that takes one
 *   8. not found       404 envelope for anything unanswered
 *   9. errors          the one envelope mapping (error-envelope.ts)
 * Express gives req and res their methods; its router is not walked (pipeline.ts).
 * createApp returns the app; main listens.
 */
import express, { Express, RequestHandler } from 'express';
import { AppError } from '@platform/errors';
import type { AppDependencies } from './dependencies';
import { errorHandler } from './error-envelope';
import { jsonResponse } from './json-response';
import { authenticate } from './middleware/authenticate.middleware';
import { rateLimit } from './middleware/rate-limit.middleware';
import { rawBodyMiddleware } from './middleware/raw-body.middleware';
import { dispatchWithoutRouter, inOrder } from './pipeline';
import { requestIdMiddleware } from './middleware/request-id.middleware';
import { RouteTemplates } from './gateway-metrics';
import { healthzHandler } from './routes/health.route';
import { docsPageHandler, openApiJsonHandler } from './routes/reference.route';
import { createV1Router, registrationOrder, servedOperations } from './routes/v1.router';

/** The unauthenticated routes registered below, outside /v1 (metrics label their answers by these). */
const OPEN_ROUTES = ['/healthz', '/openapi.json', '/docs'];
const V1_MOUNT = '/v1';
const V1_PREFIX = `${V1_MOUNT}/`;

/**
 * Where a request goes by its path, exactly (case-sensitive, no trailing slash, as the
 * app's routing settings say): `/v1` and everything below it to the partner plane, an
 * open route's path to its GET (which answers HEAD too), anything else on to the 404.
 */
function byPath(openRoutes: ReadonlyMap<string, RequestHandler>, partnerPlane: RequestHandler): RequestHandler {
  return (req, res, next) => {
    const path = req.path;
    if (path === V1_MOUNT || path.startsWith(V1_PREFIX)) return partnerPlane(req, res, next);
    const open = req.method === 'GET' || req.method === 'HEAD' ? openRoutes.get(path) : undefined;
    return open ? open(req, res, next) : next();
  };
}

export function createApp(deps: AppDependencies): Express {
  const app = express();
  // Settings first: the app's router reads them when it is created, at the first `use`.
  app.set('x-powered-by', false);
  app.set('etag', false);
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  // req.ip: the address that many hops from the right of X-Forwarded-For (a number, never `true`, which would trust the leftmost, client-chosen entry).
  app.set('trust proxy', deps.trustedProxyHops);
  // Every answer is JSON: one serialisation, one write (json-response.ts).
  app.response.json = jsonResponse;

  const routes = new RouteTemplates([
    ...OPEN_ROUTES,
    ...registrationOrder(servedOperations(deps.mode)).map((operation) => operation.path),
  ]);
  const partnerPlane = inOrder([
    authenticate({
      credentials: deps.credentials,
      admission: deps.admission,
      refusedAuthentications: deps.refusedAuthentications,
      apiKeyPattern: deps.apiKeyPattern,
      logger: deps.logger,
      metrics: deps.metrics,
      nowMs: deps.nowMs ?? Date.now,
    }),
    rateLimit(deps.metrics),
    createV1Router(deps),
  ]);
  const openRoutes = new Map<string, RequestHandler>([
    ['/healthz', healthzHandler(deps.readiness)],
    ['/openapi.json', openApiJsonHandler()],
    ['/docs', docsPageHandler()],
  ]);
  // The steps run in order without Express' router (pipeline.ts); anything unanswered is the 404 envelope.
  dispatchWithoutRouter(
    app,
    inOrder([
      requestIdMiddleware(deps.logger, routes, deps.metrics),
      rawBodyMiddleware(),
      byPath(openRoutes, partnerPlane),
    ]),
    errorHandler(deps.logger),
    () => new AppError('NOT_FOUND'),
  );
  return app;
}
