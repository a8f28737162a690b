// Proves the admission script (nonce claim + rate-limit count in one Lua call)
// against the test stack's real Redis. Atomic under concurrency: many requests
// of one partner fired at once admit exactly the limit, with every remaining
// count from limit-1 down to 0 handed out once; the same nonce sent many times
// at once is fresh exactly once; replays and refusals are never counted; and a
// Redis that lost its script cache loads it again without losing a request.
// Exact in time: the same script with a clock of the spec's own (through ARGV
// instead of Redis' TIME) is stepped across second edges, where a second's
// requests leave together 60 s after the last of them, RateLimit-Reset and
// Retry-After say exactly when (a partner obeying Retry-After is admitted), a
// long random run agrees with a plain model of the window at every step (and
// proves it met clock step-backs, refusals, releases and gaps past the window)
// while the hash never holds more than the window's seconds, and the key
// expires once its newest second's requests have all left.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { createLogger } from '@platform/logger';
import { loadTestStack } from '@platform/testing';
import { RedisRequestAdmission } from '../src/adapters/redis-admission';
import {
  admissionScript,
  interpretAdmissionReply,
  nonceKey,
  RATE_LIMIT_WINDOW_MS,
  rateLimitKey,
  WINDOW_SECONDS,
} from '../src/domain/rate-limit';

const logger = createLogger('gateway-admission-test', 'error');
const LIMIT = 50;
const CONCURRENT = 200;

let redis: Redis;
let admission: RedisRequestAdmission;

beforeAll(() => {
  redis = new Redis(loadTestStack().redisUrl);
  admission = new RedisRequestAdmission(redis, logger);
});

afterAll(async () => {
  await redis.quit();
});

/** The requests the partner's window counts now. */
const countedOf = async (partnerId: string) => Number(await redis.hget(rateLimitKey(partnerId), 'total'));

const request = (partnerId: string, nonce = randomUUID()) => ({
  apiKey: `pk_sandbox_${partnerId}`,
  nonce,
  partnerId,
  limitPerMinute: LIMIT,
});

it(`admits exactly ${LIMIT} of ${CONCURRENT} concurrent requests, each remaining count once`, async () => {
  const partnerId = randomUUID();
  const results = await Promise.all(Array.from({ length: CONCURRENT }, () => admission.admit(request(partnerId))));
  const decisions = results.map((result) => {
    if (!result.nonceFresh) throw new Error('a fresh nonce was taken for a replay');
    return result.rateLimit;
  });
  const admitted = decisions.filter((decision) => decision.allowed);
  expect(admitted).toHaveLength(LIMIT);
  expect(admitted.map((decision) => decision.remaining).sort((a, b) => a - b)).toEqual(
    Array.from({ length: LIMIT }, (_, index) => index),
  );
  for (const refused of decisions.filter((decision) => !decision.allowed)) {
    expect(refused).toMatchObject({ allowed: false, limit: LIMIT, remaining: 0 });
    if (refused.allowed) continue;
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(RATE_LIMIT_WINDOW_MS / 1_000);
    expect(refused.resetSeconds).toBe(refused.retryAfterSeconds);
  }
  // Refusals were not recorded: the window holds the admitted requests only.
  expect(await countedOf(partnerId)).toBe(LIMIT);
});

it('claims one nonce once, whatever the number of concurrent attempts, and counts only that one', async () => {
  const partnerId = randomUUID();
  const nonce = randomUUID();
  const results = await Promise.all(Array.from({ length: 100 }, () => admission.admit(request(partnerId, nonce))));
  expect(results.filter((result) => result.nonceFresh)).toHaveLength(1);
  expect(await countedOf(partnerId)).toBe(1);
  const [fresh] = results.filter((result) => result.nonceFresh);
  expect(fresh).toEqual({
    nonceFresh: true,
    rateLimit: { allowed: true, limit: LIMIT, remaining: LIMIT - 1, resetSeconds: 60 },
  });
});

it('loads the script again after Redis forgot it (NOSCRIPT), admitting the request once', async () => {
  const partnerId = randomUUID();
  await redis.script('FLUSH');
  const result = await admission.admit(request(partnerId));
  expect(result).toMatchObject({ nonceFresh: true, rateLimit: { allowed: true, remaining: LIMIT - 1 } });
  expect(await countedOf(partnerId)).toBe(1);
});

it('sends the admissions of requests that arrive together in one socket write, each answered as alone', async () => {
  const partnerId = randomUUID();
  await admission.admit(request(partnerId)); // the script is loaded, the connection up
  const socket = redis.stream as unknown as { _write: () => void; _writev: (chunks: unknown[]) => void };
  const writes = jest.spyOn(socket, '_write');
  const batches = jest.spyOn(socket, '_writev');
  try {
    const results = await Promise.all(Array.from({ length: 20 }, () => admission.admit(request(partnerId))));
    expect(writes).not.toHaveBeenCalled();
    expect(batches).toHaveBeenCalledTimes(1);
    expect(batches.mock.calls[0][0]).toHaveLength(20);
    const remaining = results.map((result) => (result.nonceFresh ? result.rateLimit.remaining : -1));
    expect(remaining.sort((a, b) => b - a)).toEqual(Array.from({ length: 20 }, (_, index) => LIMIT - 2 - index));
  } finally {
    writes.mockRestore();
    batches.mockRestore();
  }
});

describe("the window in whole seconds, with a clock of the spec's own", () => {
  const steppedScript = admissionScript('{ARGV[2], ARGV[3]}');
  const MS = 1_000;
  const CLOCK_STEP_BACK_MS_MAX = 3_000;

  /** Admits as the gateway does, the script reading the time `atMs` (Unix ms) instead of Redis' clock. */
  async function admitAt(partnerId: string, atMs: number, limit: number, nonce = randomUUID()) {
    const reply = await redis.eval(
      steppedScript,
      2,
      nonceKey(`pk_sandbox_${partnerId}`, nonce),
      rateLimitKey(partnerId),
      limit,
      String(Math.floor(atMs / MS)),
      String((atMs % MS) * 1_000),
    );
    return interpretAdmissionReply(reply, limit);
  }

  const decisionOf = (admission: Awaited<ReturnType<typeof admitAt>>) => {
    if (!admission.nonceFresh) throw new Error('a fresh nonce was taken for a replay');
    return admission.rateLimit;
  };

  /** A whole second a little ahead of Redis' clock, so the key's expiry (that clock's) is in the future. */
  async function secondAhead(seconds: number): Promise<number> {
    const [now] = await redis.time();
    return (Number(now) + seconds) * MS;
  }

  it("counts a second's requests until 60 s after the last of them: the limit holds over every minute", async () => {
    const partnerId = randomUUID();
    const t0 = await secondAhead(5);
    expect(decisionOf(await admitAt(partnerId, t0 + 999, 3))).toMatchObject({ allowed: true, remaining: 2 });
    expect(decisionOf(await admitAt(partnerId, t0 + MS, 3))).toMatchObject({ allowed: true, remaining: 1 });
    expect(decisionOf(await admitAt(partnerId, t0 + MS + 400, 3))).toMatchObject({ allowed: true, remaining: 0 });
    // 59.999 s after the first request it still counts; the wait is 1 ms, said as 1 s.
    expect(decisionOf(await admitAt(partnerId, t0 + 60 * MS + 998, 3))).toEqual({
      allowed: false,
      retryAfterSeconds: 1,
      limit: 3,
      remaining: 0,
      resetSeconds: 1,
    });
    // 60 s after it, its second has left: one slot; the next frees 60 s after t0 + 1.4 s, the last of its second.
    expect(decisionOf(await admitAt(partnerId, t0 + 60 * MS + 999, 3))).toEqual({
      allowed: true,
      limit: 3,
      remaining: 0,
      resetSeconds: 1,
    });
    expect(decisionOf(await admitAt(partnerId, t0 + 61 * MS + 399, 3))).toMatchObject({
      allowed: false,
      retryAfterSeconds: 1,
    });
    // The request at t0 + 1.0 s counted 60.4 s, with the last of its second; then both leave.
    expect(decisionOf(await admitAt(partnerId, t0 + 61 * MS + 400, 3))).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('says when the oldest counted second leaves: RateLimit-Reset, and Retry-After on a refusal', async () => {
    const partnerId = randomUUID();
    const t0 = await secondAhead(5);
    // Alone in its second: it leaves exactly 60 s later.
    expect(decisionOf(await admitAt(partnerId, t0 + 500, 2))).toMatchObject({ allowed: true, resetSeconds: 60 });
    expect(decisionOf(await admitAt(partnerId, t0 + 30 * MS + 200, 2))).toMatchObject({
      allowed: true,
      remaining: 0,
      resetSeconds: 31,
    });
    expect(decisionOf(await admitAt(partnerId, t0 + 45 * MS, 2))).toEqual({
      allowed: false,
      retryAfterSeconds: 16,
      limit: 2,
      remaining: 0,
      resetSeconds: 16,
    });
  });

  it('admits a partner that sent its whole limit in one second once it waited the Retry-After it was given', async () => {
    const partnerId = randomUUID();
    const t0 = await secondAhead(5);
    for (const atMs of [t0 + 100, t0 + 400, t0 + 700]) {
      expect(decisionOf(await admitAt(partnerId, atMs, 3))).toMatchObject({ allowed: true });
    }
    const refused = decisionOf(await admitAt(partnerId, t0 + 800, 3));
    // The second's last request, at t0 + 0.7 s, leaves at t0 + 60.7 s: 59.9 s from now, said as 60.
    expect(refused).toMatchObject({ allowed: false, retryAfterSeconds: 60, resetSeconds: 60 });
    expect(decisionOf(await admitAt(partnerId, t0 + 60 * MS + 699, 3))).toMatchObject({
      allowed: false,
      retryAfterSeconds: 1,
    });
    if (refused.allowed) throw new Error('refused above');
    expect(decisionOf(await admitAt(partnerId, t0 + 800 + refused.retryAfterSeconds * MS, 3))).toEqual({
      allowed: true,
      limit: 3,
      remaining: 2,
      resetSeconds: 60,
    });
  });

  it('records neither a refusal nor a replay', async () => {
    const partnerId = randomUUID();
    const t0 = await secondAhead(5);
    const nonce = randomUUID();
    expect(decisionOf(await admitAt(partnerId, t0, 2, nonce))).toMatchObject({ allowed: true, remaining: 1 });
    expect(await admitAt(partnerId, t0 + 1, 2, nonce)).toEqual({ nonceFresh: false });
    expect(decisionOf(await admitAt(partnerId, t0 + 2 * MS, 2))).toMatchObject({ allowed: true, remaining: 0 });
    for (let attempt = 0; attempt < 5; attempt += 1) {
      expect(decisionOf(await admitAt(partnerId, t0 + 30 * MS + attempt, 2))).toMatchObject({ allowed: false });
    }
    expect(await countedOf(partnerId)).toBe(2);
    // The first request leaves at t0 + 60 s; the refusals in between left nothing to wait for.
    expect(decisionOf(await admitAt(partnerId, t0 + 60 * MS, 2))).toMatchObject({ allowed: true, remaining: 0 });
  });

  it("keeps every count when Redis' clock steps back into a counted second and forward again", async () => {
    const partnerId = randomUUID();
    const t0 = await secondAhead(5);
    for (const atMs of [t0, t0 + 3 * MS, t0 + 4 * MS, t0 + 3 * MS + 500, t0 + 4 * MS + 200]) {
      expect(decisionOf(await admitAt(partnerId, atMs, 10))).toMatchObject({ allowed: true });
    }
    expect(await countedOf(partnerId)).toBe(5);
    // Each second in one entry: the four named fields, t0 and t0+3 behind (t0+4 taken back to the front).
    expect(await redis.hlen(rateLimitKey(partnerId))).toBe(6);
    // t0's second leaves, the total is recounted from the seconds left: t0+3 holds 2, t0+4 holds 2.
    expect(decisionOf(await admitAt(partnerId, t0 + 60 * MS, 10))).toMatchObject({ allowed: true, remaining: 5 });
    expect(await countedOf(partnerId)).toBe(5);
    // t0+3's last request (t0+3.5 s) still counts at t0+63.499 s, the first of its second as long.
    expect(decisionOf(await admitAt(partnerId, t0 + 63 * MS + 499, 10))).toMatchObject({ remaining: 4 });
    expect(decisionOf(await admitAt(partnerId, t0 + 63 * MS + 500, 10))).toMatchObject({ remaining: 5 });
  });

  it("says 60 s, the documented bound, when Redis' clock stepped back behind the oldest counted second", async () => {
    const partnerId = randomUUID();
    const t0 = await secondAhead(5);
    await admitAt(partnerId, t0 + 5 * MS + 100, 2);
    await admitAt(partnerId, t0 + 5 * MS + 300, 2);
    // Truly 62.4 s: the second's last request, at t0 + 5.3 s, leaves at t0 + 65.3 s.
    expect(decisionOf(await admitAt(partnerId, t0 + 2 * MS + 900, 2))).toMatchObject({
      allowed: false,
      retryAfterSeconds: 60,
      resetSeconds: 60,
    });
    // In the same second, 0.1 s behind its last admission: truly 60.1 s.
    expect(decisionOf(await admitAt(partnerId, t0 + 5 * MS + 200, 2))).toMatchObject({
      allowed: false,
      resetSeconds: 60,
    });
    expect(decisionOf(await admitAt(partnerId, t0 + 65 * MS + 299, 2))).toMatchObject({
      allowed: false,
      resetSeconds: 1,
    });
    expect(decisionOf(await admitAt(partnerId, t0 + 65 * MS + 300, 2))).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('agrees with a plain model of the window over a long random run, clock steps back included, never holding more than its seconds', async () => {
    const partnerId = randomUUID();
    const limit = 40;
    const t0 = await secondAhead(5);
    // A fixed pseudo-random walk (Park–Miller, exact in doubles): bursts, pauses, gaps past the window.
    let seed = 16;
    const next = (bound: number) => {
      seed = (seed * 48_271) % 2_147_483_647;
      return seed % bound;
    };
    const met = { stepBacks: 0, refusals: 0, releases: 0, gapsPastWindow: 0, clamped: 0 };
    let counted: number[] = [];
    let atMs = t0;
    for (let step = 0; step < 1_000; step += 1) {
      const kind = next(20);
      // Mostly forward by under a second; at times a gap of 50 to 70 s, or Redis' clock stepping back up to 3 s.
      const beforeMs = atMs;
      if (kind === 0) atMs += 50 * MS + next(20 * MS);
      else if (kind === 1) atMs -= next(CLOCK_STEP_BACK_MS_MAX);
      else atMs += next(700);
      if (atMs < beforeMs) met.stepBacks += 1;
      if (atMs - beforeMs > WINDOW_SECONDS * MS) met.gapsPastWindow += 1;
      // The model: a second's requests leave together, RATE_LIMIT_WINDOW_MS after the last of them.
      const lastOfSecond = new Map<number, number>();
      for (const at of counted) {
        const second = Math.floor(at / MS);
        lastOfSecond.set(second, Math.max(lastOfSecond.get(second) ?? at, at));
      }
      const kept = counted.filter((at) => lastOfSecond.get(Math.floor(at / MS))! + RATE_LIMIT_WINDOW_MS > atMs);
      if (kept.length < counted.length) met.releases += 1;
      const allowed = kept.length < limit;
      if (allowed) kept.push(atMs);
      else met.refusals += 1;
      const oldestSecond = Math.floor(Math.min(...kept) / MS);
      const oldestLastMs = Math.max(...kept.filter((at) => Math.floor(at / MS) === oldestSecond));
      const truthMs = oldestLastMs + RATE_LIMIT_WINDOW_MS - atMs;
      if (truthMs > RATE_LIMIT_WINDOW_MS) met.clamped += 1;
      const resetSeconds = Math.ceil(Math.min(truthMs, RATE_LIMIT_WINDOW_MS) / MS);
      const decision = decisionOf(await admitAt(partnerId, atMs, limit));
      expect({ step, ...decision }).toEqual({
        step,
        allowed,
        ...(allowed ? {} : { retryAfterSeconds: resetSeconds }),
        limit,
        remaining: limit - kept.length,
        resetSeconds,
      });
      counted = kept;
      // A field per second (seconds ahead of a clock that stepped back too) and the four named ones.
      expect(await redis.hlen(rateLimitKey(partnerId))).toBeLessThanOrEqual(
        WINDOW_SECONDS + CLOCK_STEP_BACK_MS_MAX / MS + 4,
      );
    }
    // The run met what it is for, not only the common admission.
    expect(met.stepBacks).toBeGreaterThanOrEqual(20);
    expect(met.refusals).toBeGreaterThanOrEqual(20);
    expect(met.releases).toBeGreaterThanOrEqual(20);
    expect(met.gapsPastWindow).toBeGreaterThanOrEqual(10);
    expect(met.clamped).toBeGreaterThanOrEqual(1);
  });

  it("keeps the key until its newest second's requests have all left, never less after a clock stepping back", async () => {
    const partnerId = randomUUID();
    const key = rateLimitKey(partnerId);
    const t0 = await secondAhead(5);
    await admitAt(partnerId, t0 + 100, 10);
    expect(await redis.pexpiretime(key)).toBe(t0 + WINDOW_SECONDS * MS);
    await admitAt(partnerId, t0 + 5 * MS, 10);
    expect(await redis.pexpiretime(key)).toBe(t0 + (5 + WINDOW_SECONDS) * MS);
    await admitAt(partnerId, t0 + 2 * MS, 10);
    expect(await redis.pexpiretime(key)).toBe(t0 + (5 + WINDOW_SECONDS) * MS);
    expect(await countedOf(partnerId)).toBe(3);
  });

  it('leaves nothing behind once the window has passed', async () => {
    const partnerId = randomUUID();
    const key = rateLimitKey(partnerId);
    // Early in a second of Redis' clock, so the expiry (the end of a second) is 1.5 to 2 s away.
    let [seconds, microseconds] = await redis.time();
    if (Number(microseconds) > 500_000) {
      await new Promise((resolve) => setTimeout(resolve, 1_010 - Number(microseconds) / 1_000));
      [seconds, microseconds] = await redis.time();
    }
    // A request whose second ends 2 s from now on Redis' clock, 60 s in the past: it leaves within 2 s.
    const t0 = (Number(seconds) + 2 - WINDOW_SECONDS) * MS;
    await admitAt(partnerId, t0, 10);
    const pttlMs = await redis.pttl(key);
    expect(pttlMs).toBeGreaterThan(MS);
    expect(pttlMs).toBeLessThanOrEqual(2 * MS);
    await new Promise((resolve) => setTimeout(resolve, pttlMs + 100));
    expect(await redis.exists(key)).toBe(0);
  });
});
