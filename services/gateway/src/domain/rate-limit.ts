/**
 * Admission of an authentic request, in ONE Redis round trip: its nonce is
 * claimed and, if fresh, the request is counted against the partner rate limit.
 * Both live in Redis, so every gateway replica sees the same
 * nonces and counts the same requests; the Lua script below runs atomically and
 * reads Redis' own clock, so replicas with skewed clocks still agree.
 *
 * The limit is a sliding window of 60 s over every request of the partner,
 * whatever credential made it, kept as a sorted set of request times. A
 * replayed nonce is not counted; a request over the limit is not recorded, so
 * hammering does not extend a partner's wait (its nonce is spent all the same:
 * the request was authentic and answered).
 */
export const RATE_LIMIT_WINDOW_MS = 60_000;
const MS_PER_SECOND = 1_000;

export function rateLimitKey(partnerId: string): string {
  return `ratelimit:partner:${partnerId}`;
}

export function nonceKey(apiKey: string, nonce: string): string {
  return `nonce:${apiKey}:${nonce}`;
}

/**
 * KEYS[1] the nonce, KEYS[2] the partner's window (one Redis node holds both:
 * a cluster would need them in one hash slot). ARGV[1] nonce retention in ms,
 * ARGV[2] window in ms, ARGV[3] limit, ARGV[4] a unique member for this request.
 *
 * Returns {0, 0, 0, 0} for a replayed nonce; otherwise {1, admitted (1/0),
 * requests left in the window after this one, ms until the oldest request in
 * the window leaves it (when a slot frees; the wait on a refusal)}.
 */
export const ADMISSION_SCRIPT = `
if not redis.call('SET', KEYS[1], '1', 'PX', ARGV[1], 'NX') then
  return {0, 0, 0, 0}
end
local key = KEYS[2]
local window_ms = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local time = redis.call('TIME')
local now_ms = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', key, '-inf', now_ms - window_ms)
local count = redis.call('ZCARD', key)
local admitted = 0
if count < limit then
  redis.call('ZADD', key, now_ms, ARGV[4])
  redis.call('PEXPIRE', key, window_ms)
  count = count + 1
  admitted = 1
end
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
local reset_ms = window_ms
if oldest[2] then reset_ms = tonumber(oldest[2]) + window_ms - now_ms end
local remaining = limit - count
if remaining < 0 then remaining = 0 end
return {1, admitted, remaining, reset_ms}
`;

/**
 * Where the partner stands against its limit after this request: what the
 * RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset headers say.
 * `resetSeconds` is when a slot frees again (the oldest counted request leaves
 * the window); on a refusal it is also the Retry-After wait.
 */
export interface RateLimitState {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

export type RateLimitDecision = ({ allowed: true } | { allowed: false; retryAfterSeconds: number }) & RateLimitState;

export type Admission = { nonceFresh: false } | { nonceFresh: true; rateLimit: RateLimitDecision };

/** Whole seconds to wait, rounded up, at least 1 and at most the window. */
export function retryAfterSeconds(waitMs: number): number {
  const seconds = Math.ceil(waitMs / MS_PER_SECOND);
  return Math.min(Math.max(seconds, 1), RATE_LIMIT_WINDOW_MS / MS_PER_SECOND);
}

/** Reads the script's reply; anything else is a bug in the script. */
export function interpretAdmissionReply(reply: unknown, limit: number): Admission {
  if (!Array.isArray(reply) || reply.length !== 4 || !reply.every((item) => Number.isInteger(item))) {
    throw new Error(`admission script answered an unexpected reply: ${JSON.stringify(reply)}`);
  }
  const [nonceFresh, admitted, remaining, resetMs] = reply as [number, number, number, number];
  if (nonceFresh !== 1) return { nonceFresh: false };
  const state: RateLimitState = { limit, remaining, resetSeconds: retryAfterSeconds(resetMs) };
  const rateLimit: RateLimitDecision =
    admitted === 1 ? { allowed: true, ...state } : { allowed: false, retryAfterSeconds: state.resetSeconds, ...state };
  return { nonceFresh: true, rateLimit };
}

/** The IETF draft's rate-limit header fields for a state, on every admitted or limited answer. */
export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    'RateLimit-Limit': String(state.limit),
    'RateLimit-Remaining': String(state.remaining),
    'RateLimit-Reset': String(state.resetSeconds),
  };
}
