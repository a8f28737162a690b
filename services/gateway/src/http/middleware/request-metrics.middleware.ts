import type { RequestHandler } from 'express';
import { GatewayMetrics, methodLabel, RouteTemplates } from '../gateway-metrics';

/** What an answer the client did not wait for is counted as (nginx's convention). */
const CLIENT_CLOSED_STATUS = 499;

/**
 * Before every other step: each request is counted and timed once its
 * connection is done with it, by route template (never the raw path), method
 * and status, whatever step answered it (a 401 from authentication, a 404, a
 * handler's 201).
 */
export function requestMetricsMiddleware(metrics: GatewayMetrics, routes: RouteTemplates): RequestHandler {
  return (req, res, next) => {
    const startedAt = performance.now();
    res.once('close', () => {
      const status = res.writableFinished ? res.statusCode : CLIENT_CLOSED_STATUS;
      // originalUrl: routers mounted on a prefix rewrite req.url and req.path while they run.
      metrics.requestAnswered(
        routes.of(req.originalUrl.split('?')[0]),
        methodLabel(req.method),
        status,
        performance.now() - startedAt,
      );
    });
    next();
  };
}
