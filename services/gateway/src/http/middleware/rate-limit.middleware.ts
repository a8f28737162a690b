import type { RequestHandler } from 'express';
import { AppError } from '@platform/errors';
import type { RateLimiter } from '../dependencies';
import { partnerAuthOf } from '../locals';

/**
 * After authentication: one request of the partner counted against its
 * per-minute limit, shared by all its credentials and all gateway replicas.
 * Over the limit: 429 with Retry-After-partner (see error-envelope.ts).
 */
export function rateLimit(limiter: RateLimiter): RequestHandler {
  return async (_req, res, next) => {
    const { partnerId, rateLimitPerMinute } = partnerAuthOf(res);
    const decision = await limiter.consume(partnerId, rateLimitPerMinute);
    if (!decision.allowed) throw new AppError('RATE_LIMITED', { retryAfterSeconds: decision.retryAfterSeconds });
    next();
  };
}
