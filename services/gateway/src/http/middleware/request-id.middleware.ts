import type { RequestHandler } from 'express';
import { Logger, runWithContext } from '@platform/logger';
import { contextFromTraceparent, endSpan, SpanKind, startSpan, withContext } from '@platform/tracing';
import { resolveRequestId } from '../../domain/request-id';
import { GatewayMetrics, methodLabel, RouteTemplates } from '../gateway-metrics';
import { maybePartnerIdOf, setRequestId } from '../locals';

const LOGGED_PATH_CHARS_MAX = 200;
const SERVER_ERROR_STATUS_MIN = 500;
/** What an answer the client did not wait for is counted as (nginx's convention). */
const CLIENT_CLOSED_STATUS = 499;

/**
 * First step: every response, whatever happens later, carries X-Request-Id, and
 * everything after runs inside the request's log context and its trace span:
 * the trace a valid W3C `traceparent` header names is continued, any other
 * request starts a new one; every gRPC call and log line of the request carries
 * it. When the connection is done with the request, in one listener: the answer
 * is counted and timed by route template (never the raw path), method and
 * status, whatever step answered it (a 401 from authentication, a 404, a
 * handler's 201; 499 when the client went away first); the span ends; and an
 * answered request writes one access-log line: method, path without the query,
 * status, duration, trace id. Never headers or bodies. One listener and one
 * route lookup per request: this runs on every request, so it is kept to that.
 */
export function requestIdMiddleware(
  logger: Logger,
  routes: RouteTemplates,
  metrics: Pick<GatewayMetrics, 'requestAnswered'>,
): RequestHandler {
  return (req, res, next) => {
    const startedAtMs = performance.now();
    const requestId = resolveRequestId(req.headers['x-request-id']);
    const { span, context } = startSpan(req.method, {
      kind: SpanKind.SERVER,
      parent: contextFromTraceparent(req.headers.traceparent),
    });
    setRequestId(res, requestId);
    res.setHeader('X-Request-Id', requestId);
    // Partner data must not sit in shared caches, and JSON must not be sniffed as anything else.
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    // 'close' follows 'finish', and comes alone when the client went away first; a response emits it once.
    res.on('close', () => {
      const durationMs = performance.now() - startedAtMs;
      const answered = res.writableFinished;
      // originalUrl: routers mounted on a prefix rewrite req.url and req.path while they run.
      const path = withoutQuery(req.originalUrl);
      const route = routes.of(path);
      metrics.requestAnswered(
        route,
        methodLabel(req.method),
        answered ? res.statusCode : CLIENT_CLOSED_STATUS,
        durationMs,
      );
      const { traceId, spanId } = span.spanContext();
      if (answered) {
        logger.info('request served', {
          requestId,
          partnerId: maybePartnerIdOf(res),
          method: req.method,
          path: path.slice(0, LOGGED_PATH_CHARS_MAX),
          status: res.statusCode,
          durationMs: Math.round(durationMs),
          traceId,
          spanId,
        });
      }
      if (span.isRecording()) {
        span.updateName(`${req.method} ${route}`);
        span.setAttributes({
          'http.request.method': req.method,
          'http.route': route,
          'http.response.status_code': res.statusCode,
        });
      }
      endSpan(span, res.statusCode >= SERVER_ERROR_STATUS_MIN || !answered ? `HTTP ${res.statusCode}` : undefined);
    });
    withContext(context, () => runWithContext({ requestId }, next));
  };
}

function withoutQuery(url: string): string {
  const queryAt = url.indexOf('?');
  return queryAt < 0 ? url : url.slice(0, queryAt);
}
