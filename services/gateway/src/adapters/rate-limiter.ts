import { createHash, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { AppError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { interpretRateLimitReply, RATE_LIMIT_SCRIPT, RATE_LIMIT_WINDOW_MS, RateLimitDecision, rateLimitKey } from '../domain/rate-limit';
import type { RateLimiter } from '../http/dependencies';

const SCRIPT_SHA1 = createHash('sha1').update(RATE_LIMIT_SCRIPT).digest('hex');

function isNoScript(error: unknown): boolean {
  return (error as Error | undefined)?.message?.startsWith('NOSCRIPT') ?? false;
}

/** The sliding-window partner limit of domain/rate-limit.ts, run atomically in Redis. */
export class RedisRateLimiter implements RateLimiter {
  constructor(private readonly redis: Redis, private readonly logger: Logger) {}

  async consume(partnerId: string, limitPerMinute: number): Promise<RateLimitDecision> {
    // A fresh member per request: two requests in the same millisecond are two entries.
    const args = [rateLimitKey(partnerId), String(RATE_LIMIT_WINDOW_MS), String(limitPerMinute), randomUUID()];
    let reply: unknown;
    try {
      reply = await this.run(args);
    } catch (error) {
      this.logger.warn('rate limiter unavailable; refusing the request', { error: (error as Error).message });
      throw new AppError('SERVICE_UNAVAILABLE');
    }
    return interpretRateLimitReply(reply);
  }

  private async run(args: string[]): Promise<unknown> {
    try {
      return await this.redis.evalsha(SCRIPT_SHA1, 1, ...args);
    } catch (error) {
      // First use on this Redis (or after a flush): load the script by sending it whole.
      if (!isNoScript(error)) throw error;
      return this.redis.eval(RATE_LIMIT_SCRIPT, 1, ...args);
    }
  }
}
