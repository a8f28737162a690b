import type { RequestHandler } from 'express';
import { Logger, runWithContext } from '@platform/logger';
import { contextFromTraceparent, endSpan, SpanKind, startSpan, withContext } from '@platform/tracing';
import { resolveRequestId } from '../../domain/request-id';
import type { RouteTemplates } from '../gateway-metrics';
import { maybePartnerIdOf, setRequestId } from '../locals';

const LOGGED_PATH_CHARS_MAX = 200;
const SERVER_ERROR_STATUS_MIN = 500;

/**
 * First step: every response, whatever happens later, carries X-Request-Id, and
 * everything after runs inside the request's log context and its trace span:
 * the trace a valid W3C `traceparent` header names is continued, any other
 * request starts a new one; every gRPC call and log line of the request carries
 * it. One access-log line per request: method, path without the query, status,
 * duration, trace id. Never headers or bodies.
 */
export function requestIdMiddleware(logger: Logger, routes: RouteTemplates): RequestHandler {
  return (req, res, next) => {
    const requestId = resolveRequestId(req.headers['x-request-id']);
    const startedAtMs = Date.now();
    const { span, context } = startSpan(req.method, {
      kind: SpanKind.SERVER,
      parent: contextFromTraceparent(req.headers.traceparent),
    });
    const { traceId, spanId } = span.spanContext();
    setRequestId(res, requestId);
    res.setHeader('X-Request-Id', requestId);
    // Partner data must not sit in shared caches, and JSON must not be sniffed as anything else.
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.on('finish', () => {
      const path = req.originalUrl.split('?')[0];
      logger.info('request served', {
        requestId,
        partnerId: maybePartnerIdOf(res),
        method: req.method,
        path: path.slice(0, LOGGED_PATH_CHARS_MAX),
        status: res.statusCode,
        durationMs: Date.now() - startedAtMs,
        traceId,
        spanId,
      });
    });
    // 'close' follows 'finish', and comes alone when the client went away first: the span ends either way.
    res.once('close', () => {
      if (span.isRecording()) {
        const route = routes.of(req.originalUrl.split('?')[0]);
        span.updateName(`${req.method} ${route}`);
        span.setAttributes({
          'http.request.method': req.method,
          'http.route': route,
          'http.response.status_code': res.statusCode,
        });
      }
      endSpan(
        span,
        res.statusCode >= SERVER_ERROR_STATUS_MIN || !res.writableFinished ? `HTTP ${res.statusCode}` : undefined,
      );
    });
    withContext(context, () => runWithContext({ requestId }, () => next()));
  };
}
