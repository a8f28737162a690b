import type { RequestHandler } from 'express';
import { AppError } from '@platform/errors';
import { setRateLimitHeaders } from '../../domain/rate-limit';
import type { GatewayMetrics } from '../gateway-metrics';
import { rateLimitDecisionOf } from '../locals';

/**
 * After authentication, which counted the request against the partner's
 * per-minute limit (shared by all its credentials and all gateway replicas):
 * every answer from here on carries RateLimit-Limit, RateLimit-Remaining and
 * RateLimit-Reset; over the limit it is a 429 with Retry-After-partner (see
 * error-envelope.ts), counted as a partner-limit refusal.
 */
export function rateLimit(metrics: Pick<GatewayMetrics, 'rateLimitRefused'>): RequestHandler {
  return (_req, res, next) => {
    const decision = rateLimitDecisionOf(res);
    setRateLimitHeaders(res, decision);
    if (!decision.allowed) {
      metrics.rateLimitRefused('partner');
      throw new AppError('RATE_LIMITED', { retryAfterSeconds: decision.retryAfterSeconds });
    }
    next();
  };
}
