/**
 * The partner rate limit (spec section 8): a sliding window of 60 s over every
 * request of the partner, whatever credential made it. The window lives in
 * Redis as a sorted set of request times, so every gateway replica counts the
 * same requests; the Lua script below runs atomically and reads Redis' own
 * clock, so replicas with skewed clocks still agree. Refused requests are not
 * recorded, so hammering does not extend a partner's wait.
 */
export const RATE_LIMIT_WINDOW_MS = 60_000;
const MS_PER_SECOND = 1_000;

export function rateLimitKey(partnerId: string): string {
  return `ratelimit:partner:${partnerId}`;
}

/**
 * KEYS[1] the partner's window; ARGV[1] window in ms, ARGV[2] limit, ARGV[3] a
 * unique member for this request. Returns {1, 0} when admitted, or {0, waitMs}
 * where waitMs is when the oldest request in the window leaves it.
 */
export const RATE_LIMIT_SCRIPT = `
local key = KEYS[1]
local window_ms = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local time = redis.call('TIME')
local now_ms = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', key, '-inf', now_ms - window_ms)
if redis.call('ZCARD', key) < limit then
  redis.call('ZADD', key, now_ms, ARGV[3])
  redis.call('PEXPIRE', key, window_ms)
  return {1, 0}
end
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
return {0, tonumber(oldest[2]) + window_ms - now_ms}
`;

export type RateLimitDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** Whole seconds to wait, rounded up, at least 1 and at most the window. */
export function retryAfterSeconds(waitMs: number): number {
  const seconds = Math.ceil(waitMs / MS_PER_SECOND);
  return Math.min(Math.max(seconds, 1), RATE_LIMIT_WINDOW_MS / MS_PER_SECOND);
}

/** Reads the script's reply; anything else is a bug in the script. */
export function interpretRateLimitReply(reply: unknown): RateLimitDecision {
  if (!Array.isArray(reply) || reply.length !== 2 || !reply.every((item) => typeof item === 'number')) {
    throw new Error(`rate limit script answered an unexpected reply: ${JSON.stringify(reply)}`);
  }
  const [admitted, waitMs] = reply as [number, number];
  return admitted === 1 ? { allowed: true } : { allowed: false, retryAfterSeconds: retryAfterSeconds(waitMs) };
}
