/**
 * Admission of an authentic request, in ONE Redis round trip: its nonce is
 * claimed and, if fresh, the request is counted against the partner rate limit.
 * Both live in Redis, so every gateway replica sees the same
 * nonces and counts the same requests; the Lua script below runs atomically and
 * reads Redis' own clock, so replicas with skewed clocks still agree.
 *
 * The limit is a rolling minute over every request of the partner, whatever
 * credential made it, counted in whole seconds of Redis' clock: a hash per
 * partner holds the count of each second still in the window and their total,
 * so an admission is a bounded amount of work and a partner's window at most
 * WINDOW_SECONDS counts, whatever its limit (a sorted set of every request
 * held up to 100,000 members, ~10 MB, for a partner at the highest limit). A
 * request counts from its second until WINDOW_SECONDS whole seconds later:
 * for 60 to 61 s, never less than a minute, so no 60 s span ever holds more
 * admitted requests than the limit. A replayed nonce is not counted; a request
 * over the limit is not recorded, so hammering does not extend a partner's
 * wait (its nonce is spent all the same: the request was authentic and answered).
 */
import { NONCE_RETENTION_MS } from './request-signature';

export const RATE_LIMIT_WINDOW_MS = 60_000;
const MS_PER_SECOND = 1_000;
/**
 * Seconds a request stays counted: its own (partly gone by when it arrives) and the
 * next 60, so it counts for at least RATE_LIMIT_WINDOW_MS.
 */
export const WINDOW_SECONDS = RATE_LIMIT_WINDOW_MS / MS_PER_SECOND + 1;
/** The reply packs the ms to the reset below this bound (at most WINDOW_SECONDS × 1,000 = 61,000). */
const RESET_MS_BOUND = 65_536;
const REPLAYED_NONCE = -1;

/**
 * The partner's window (a hash of per-second counts). The name differs from the sorted
 * set the window was before, so replicas of both kinds during a rolling deploy never meet
 * a key of the other type (each counts on its own until the old ones are gone).
 */
export function rateLimitKey(partnerId: string): string {
  return `ratelimit:partner:${partnerId}:seconds`;
}

export function nonceKey(apiKey: string, nonce: string): string {
  return `nonce:${apiKey}:${nonce}`;
}

/** The script's clock: Redis' own, as seconds and microseconds (strings). */
const REDIS_CLOCK = "redis.call('TIME')";

/**
 * KEYS[1] the nonce, KEYS[2] the partner's window (one Redis node holds both:
 * a cluster would need them in one hash slot). ARGV[1] the partner's limit.
 * `clock` is a Lua expression giving {seconds, microseconds}: Redis' own in
 * production; the script's spec passes a clock of its own through ARGV to
 * step across second edges.
 *
 * The window's hash: `total` (requests counted), `oldest` (the oldest second
 * with a count), the second being counted now and its count (`second`,
 * `count`), and one field per earlier second with requests, named by the
 * second. The four named fields come first in the hash (a listpack, searched
 * from the front), so the common admission, another request in the same
 * second, reads and writes only them; a request in a new second moves the
 * finished second's count behind (HINCRBY: a clock stepping back may meet a
 * second already there). Seconds that left the window are released when
 * `oldest` has left it: one pass over at most WINDOW_SECONDS + 4 fields, at
 * most once a second per partner, `total` and `oldest` recomputed from what
 * is left. The key expires when its newest second leaves the window, so a
 * partner gone quiet leaves nothing behind.
 *
 * Returns -1 for a replayed nonce; otherwise one integer (no array to
 * allocate and check per request): (remaining × RESET_MS_BOUND + reset_ms) × 2
 * + admitted, with remaining the requests left in the window after this one
 * and reset_ms the ms until the oldest counted second leaves it (a slot frees;
 * the wait on a refusal), 1 to WINDOW_SECONDS × 1,000. At most
 * (100,000 × 65,536 + 61,000) × 2 + 1 < 2^53: exact in Lua and in JS.
 */
export function admissionScript(clock = REDIS_CLOCK): string {
  return `
if not redis.call('SET', KEYS[1], '1', 'PX', '${NONCE_RETENTION_MS}', 'NX') then
  return ${REPLAYED_NONCE}
end
local key = KEYS[2]
local limit = tonumber(ARGV[1])
local time = ${clock}
local now_s = tonumber(time[1])
local now_ms = now_s * 1000 + math.floor(tonumber(time[2]) / 1000)
local first_kept = now_s - ${WINDOW_SECONDS} + 1
local state = redis.call('HMGET', key, 'total', 'oldest', 'second', 'count')
local total = tonumber(state[1]) or 0
local oldest = tonumber(state[2])
local current = tonumber(state[3])
local count = tonumber(state[4]) or 0
local released = false
if oldest and oldest < first_kept then
  released = true
  local fields = redis.call('HGETALL', key)
  local gone = {}
  total = 0
  oldest = nil
  for i = 1, #fields, 2 do
    local at = tonumber(fields[i])
    if at and at < first_kept then
      gone[#gone + 1] = fields[i]
    elseif at then
      total = total + tonumber(fields[i + 1])
      if not oldest or at < oldest then oldest = at end
    end
  end
  if current and current < first_kept then
    gone[#gone + 1] = 'second'
    gone[#gone + 1] = 'count'
    current = nil
    count = 0
  elseif current then
    total = total + count
    if not oldest or current < oldest then oldest = current end
  end
  if #gone > 0 then redis.call('HDEL', key, unpack(gone)) end
end
local admitted = 0
if total < limit then
  admitted = 1
  total = total + 1
  if not oldest or now_s < oldest then oldest = now_s end
  if current == now_s then
    redis.call('HSET', key, 'total', total, 'oldest', oldest, 'count', count + 1)
  else
    if current then redis.call('HINCRBY', key, tostring(current), count) end
    redis.call('HSET', key, 'total', total, 'oldest', oldest, 'second', now_s, 'count', 1)
    local expire_at_ms = (now_s + ${WINDOW_SECONDS}) * 1000
    -- Only ever later: a clock stepping back (a failover) must not drop newer seconds.
    if redis.call('PEXPIRETIME', key) < expire_at_ms then
      redis.call('PEXPIREAT', key, expire_at_ms)
    end
  end
elseif released and total > 0 then
  redis.call('HSET', key, 'total', total, 'oldest', oldest)
elseif released then
  redis.call('DEL', key)
end
local reset_ms = ${WINDOW_SECONDS * MS_PER_SECOND}
if oldest then reset_ms = (oldest + ${WINDOW_SECONDS}) * 1000 - now_ms end
reset_ms = math.max(1, math.min(reset_ms, ${WINDOW_SECONDS * MS_PER_SECOND}))
local remaining = math.max(limit - total, 0)
return (remaining * ${RESET_MS_BOUND} + reset_ms) * 2 + admitted
`;
}

export const ADMISSION_SCRIPT = admissionScript();

/**
 * Where the partner stands against its limit after this request: what the
 * RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset headers say.
 * `resetSeconds` is when a slot frees again (the oldest counted second leaves
 * the window); on a refusal it is also the Retry-After wait. It is at most 60
 * (the documented range): when every counted request was made in the current
 * second, its slot frees 60–61 s later and the answer says 60.
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

/** Reads the script's packed reply (see admissionScript); anything else is a bug in the script. */
export function interpretAdmissionReply(reply: unknown, limit: number): Admission {
  if (reply === REPLAYED_NONCE) return { nonceFresh: false };
  if (typeof reply !== 'number' || !Number.isSafeInteger(reply) || reply < 0) {
    throw new Error(`admission script answered an unexpected reply: ${JSON.stringify(reply)}`);
  }
  const admitted = reply % 2 === 1;
  const resetMs = Math.floor(reply / 2) % RESET_MS_BOUND;
  const remaining = Math.floor(reply / (2 * RESET_MS_BOUND));
  if (resetMs < 1 || resetMs > WINDOW_SECONDS * MS_PER_SECOND || remaining >= limit) {
    throw new Error(`admission script answered an unexpected reply: ${reply}`);
  }
  const resetSeconds = retryAfterSeconds(resetMs);
  const rateLimit: RateLimitDecision = admitted
    ? { allowed: true, limit, remaining, resetSeconds }
    : { allowed: false, retryAfterSeconds: resetSeconds, limit, remaining, resetSeconds };
  return { nonceFresh: true, rateLimit };
}

/** Where rate-limit headers go: an HTTP response, or anything with its setHeader. */
export interface HeaderTarget {
  setHeader(name: string, value: string): unknown;
}

/**
 * The IETF draft's rate-limit header fields for a state, on every admitted or limited
 * answer: set one by one on the answer (no object and entries per request).
 */
export function setRateLimitHeaders(target: HeaderTarget, state: RateLimitState): void {
  target.setHeader('RateLimit-Limit', String(state.limit));
  target.setHeader('RateLimit-Remaining', String(state.remaining));
  target.setHeader('RateLimit-Reset', String(state.resetSeconds));
}
