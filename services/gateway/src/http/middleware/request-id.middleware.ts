import type { RequestHandler } from 'express';
import { Logger, runWithContext } from '@platform/logger';
import { resolveRequestId } from '../../domain/request-id';
import { maybePartnerIdOf, setRequestId } from '../locals';

const LOGGED_PATH_CHARS_MAX = 200;

/**
 * First step: every response, whatever happens later, carries X-Request-Id, and
 * everything after runs inside the request's log context. One access-log line
 * per request: method, path without the query, status, duration. Never headers
 * or bodies.
 */
export function requestIdMiddleware(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const requestId = resolveRequestId(req.headers['x-request-id']);
    const startedAtMs = Date.now();
    setRequestId(res, requestId);
    res.setHeader('X-Request-Id', requestId);
    // Partner data must not sit in shared caches, and JSON must not be sniffed as anything else.
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.on('finish', () => {
      logger.info('request served', {
        requestId,
        partnerId: maybePartnerIdOf(res),
        method: req.method,
        path: req.originalUrl.split('?')[0].slice(0, LOGGED_PATH_CHARS_MAX),
        status: res.statusCode,
        durationMs: Date.now() - startedAtMs,
      });
    });
    runWithContext({ requestId }, () => next());
  };
}
