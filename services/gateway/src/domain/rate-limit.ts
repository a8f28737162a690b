/**
 * Admission of an authentic request, in ONE Redis round trip: its nonce is
 * claimed and, if fresh, the request is counted against the partner rate limit.
 * Both live in Redis, so every gateway replica sees the same
 * nonces and counts the same requests; the Lua script below runs atomically and
 * reads Redis' own clock, so replicas with skewed clocks still agree.
 *
 * The limit is a rolling minute over every request of the partner, whatever
 * credential made it, counted in whole seconds of Redis' clock: a hash per
 * partner holds, for each second still in the window, its count and the
 * millisecond of its last admission, and their total, so an admission is a
 * bounded amount of work and a partner's window at most WINDOW_SECONDS
 * entries, whatever its limit (a sorted set of every request held up to
 * 100,000 members, 13.6 MB measured, for a partner at the highest limit).
 * A second's requests leave together, RATE_LIMIT_WINDOW_MS after the last of
 * them was admitted: every request counts for at least 60 s (its second's
 * earlier ones up to 1 s longer), so no 60 s span ever admits more than the
 * limit, and the wait a refusal states (rounded up to whole seconds) is never
 * short, save after Redis' clock stepped back (see admissionScript). A replayed
 * nonce is not counted; a request over the limit is not recorded, so
 * hammering does not extend a partner's wait (its nonce is spent all the
 * same: the request was authentic and answered).
 */
import { NONCE_RETENTION_MS } from './request-signature';

export const RATE_LIMIT_WINDOW_MS = 60_000;
const MS_PER_SECOND = 1_000;
/**
 * Whole seconds of Redis' clock a window can hold: a second's requests leave at most
 * 60.999 s after its start, so the 60 seconds before the current one and the current one.
 */
export const WINDOW_SECONDS = RATE_LIMIT_WINDOW_MS / MS_PER_SECOND + 1;
/** The reply packs the ms to the reset below this bound (at most RATE_LIMIT_WINDOW_MS). */
const RESET_MS_BOUND = 65_536;
const REPLAYED_NONCE = -1;

/**
 * The partner's window (a hash of per-second tallies). The name differs from the sorted
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
 * A second's tally is one integer: its count × 1,000 + the millisecond
 * (0–999) of its last admission in it. The window's hash: `total` (requests
 * counted), `oldest` (the Unix ms of the last admission of the oldest counted
 * second: the window frees a slot 60,000 ms after it), the second being
 * counted now and its tally (`second`, `tally`), and one field per earlier
 * second with requests, named by the second, holding its tally. A second is
 * in one entry at most, so the seconds leave in their order. The four named
 * fields come first in the hash (a listpack, searched from the front), so the
 * common admission, another request in the same second, reads and writes only
 * them; a request in a new second moves the finished second's tally behind
 * and takes back a tally of its own second found behind (a clock that
 * stepped back left it there). Seconds that left the window are released when
 * `oldest` has left it: one pass over at most WINDOW_SECONDS + 4 fields (a
 * few more after the clock stepped back), at most once a second per partner,
 * `total` and `oldest` recomputed from what is left. The key expires at the
 * end of its newest second + 60 s, when every request in it has left, so a
 * partner gone quiet leaves nothing behind.
 *
 * Returns -1 for a replayed nonce; otherwise one integer (no array to
 * allocate and check per request): (remaining × RESET_MS_BOUND + reset_ms) × 2
 * + admitted, with remaining the requests left in the window after this one
 * and reset_ms the ms until the oldest counted second leaves (a slot frees;
 * the wait on a refusal), 1 to 60,000: exact, except after Redis' clock
 * stepped back (a failover) behind a counted second, when the truth can
 * exceed 60 s by the step and the reply says 60 s, the documented bound.
 * At most (100,000 × 65,536 + 60,000) × 2 + 1 < 2^53: exact in Lua and in JS.
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
local state = redis.call('HMGET', key, 'total', 'oldest', 'second', 'tally')
local total = tonumber(state[1]) or 0
local oldest_ms = tonumber(state[2])
local current_s = tonumber(state[3])
local tally = tonumber(state[4]) or 0
local released = false
if oldest_ms and oldest_ms + ${RATE_LIMIT_WINDOW_MS} <= now_ms then
  released = true
  local fields = redis.call('HGETALL', key)
  local gone = {}
  total = 0
  oldest_ms = nil
  for i = 1, #fields, 2 do
    local second_s = tonumber(fields[i])
    if second_s then
      local value = tonumber(fields[i + 1])
      local last_ms = second_s * 1000 + value % 1000
      if last_ms + ${RATE_LIMIT_WINDOW_MS} <= now_ms then
        gone[#gone + 1] = fields[i]
      else
        total = total + math.floor(value / 1000)
        if not oldest_ms or last_ms < oldest_ms then oldest_ms = last_ms end
      end
    end
  end
  if current_s then
    local last_ms = current_s * 1000 + tally % 1000
    if last_ms + ${RATE_LIMIT_WINDOW_MS} <= now_ms then
      gone[#gone + 1] = 'second'
      gone[#gone + 1] = 'tally'
      current_s = nil
      tally = 0
    else
      total = total + math.floor(tally / 1000)
      if not oldest_ms or last_ms < oldest_ms then oldest_ms = last_ms end
    end
  end
  if #gone > 0 then redis.call('HDEL', key, unpack(gone)) end
end
local admitted = 0
if total < limit then
  admitted = 1
  total = total + 1
  local now_in_second_ms = now_ms % 1000
  if current_s ~= now_s then
    if current_s then redis.call('HSET', key, tostring(current_s), tally) end
    tally = tonumber(redis.call('HGET', key, tostring(now_s))) or 0
    if tally > 0 then redis.call('HDEL', key, tostring(now_s)) end
  end
  -- The count grows by one; the last admission's ms only ever grows (a clock stepping back keeps the later one).
  tally = (math.floor(tally / 1000) + 1) * 1000 + math.max(tally % 1000, now_in_second_ms)
  if not oldest_ms or now_s <= math.floor(oldest_ms / 1000) then
    oldest_ms = now_s * 1000 + tally % 1000
  end
  if current_s == now_s then
    redis.call('HSET', key, 'total', total, 'oldest', oldest_ms, 'tally', tally)
  else
    redis.call('HSET', key, 'total', total, 'oldest', oldest_ms, 'second', now_s, 'tally', tally)
    local expire_at_ms = (now_s + ${WINDOW_SECONDS}) * 1000
    -- Only ever later: a clock stepping back (a failover) must not drop newer seconds.
    if redis.call('PEXPIRETIME', key) < expire_at_ms then
      redis.call('PEXPIREAT', key, expire_at_ms)
    end
  end
elseif released then
  -- A refusal after a release: what is left reached the limit (at least 1), so no empty window to delete.
  redis.call('HSET', key, 'total', total, 'oldest', oldest_ms)
end
-- The oldest second is ahead of the clock only after Redis' clock stepped back: then the
-- wait can exceed 60 s by the step, and the reply says 60 s, the documented bound.
local reset_ms = math.min(oldest_ms + ${RATE_LIMIT_WINDOW_MS} - now_ms, ${RATE_LIMIT_WINDOW_MS})
-- Never below 0: a partner's limit lowered since its requests were counted leaves total above it.
local remaining = math.max(limit - total, 0)
return (remaining * ${RESET_MS_BOUND} + reset_ms) * 2 + admitted
`;
}

export const ADMISSION_SCRIPT = admissionScript();

/**
 * Where the partner stands against its limit after this request: what the
 * RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset headers say.
 * `resetSeconds` is when a slot frees again (the oldest counted second leaves
 * the window), rounded up to whole seconds, 1 to 60; on a refusal it is also the
 * Retry-After wait: waiting that long, the next request is counted (60 only after
 * Redis' clock stepped back, when the true wait can be longer; see admissionScript).
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
  const refusedWithRoom = !admitted && remaining > 0;
  if (resetMs < 1 || resetMs > RATE_LIMIT_WINDOW_MS || remaining >= limit || refusedWithRoom) {
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
