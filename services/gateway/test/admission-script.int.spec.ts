// Proves the admission script (nonce claim + rate-limit count in one Lua call)
// against the test stack's real Redis. Atomic under concurrency: many requests
// of one partner fired at once admit exactly the limit, with every remaining
// count from limit-1 down to 0 handed out once; the same nonce sent many times
// at once is fresh exactly once; replays and refusals are never counted; and a
// Redis that lost its script cache loads it again without losing a request.
// Exact in time: the same script with a clock of the spec's own (through ARGV
// instead of Redis' TIME) is stepped across second edges, where a request
// counts for 60 to 61 s, RateLimit-Reset and Retry-After say when the oldest
// second leaves, a long random run agrees with a plain model of the window at
// every step (Redis' clock stepping back now and then too) while the hash never
// holds more than the window's seconds, and
// the key expires when its newest second leaves the window.
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

  it('counts a request for 60 to 61 s: the limit holds over every minute and frees at the second edge', async () => {
    const partnerId = randomUUID();
    const t0 = await secondAhead(5);
    expect(decisionOf(await admitAt(partnerId, t0 + 999, 3))).toMatchObject({ allowed: true, remaining: 2 });
    expect(decisionOf(await admitAt(partnerId, t0 + MS, 3))).toMatchObject({ allowed: true, remaining: 1 });
    expect(decisionOf(await admitAt(partnerId, t0 + MS, 3))).toMatchObject({ allowed: true, remaining: 0 });
    // 60.000 s after the first request it still counts; the wait is 1 ms, said as 1 s.
    expect(decisionOf(await admitAt(partnerId, t0 + 60 * MS + 999, 3))).toEqual({
      allowed: false,
      retryAfterSeconds: 1,
      limit: 3,
      remaining: 0,
      resetSeconds: 1,
    });
    // At the edge of second t0 + 61 the first second has left: one slot, and the next frees a second later.
    expect(decisionOf(await admitAt(partnerId, t0 + 61 * MS, 3))).toEqual({
      allowed: true,
      limit: 3,
      remaining: 0,
      resetSeconds: 1,
    });
    expect(decisionOf(await admitAt(partnerId, t0 + 61 * MS + 1, 3))).toMatchObject({
      allowed: false,
      retryAfterSeconds: 1,
    });
    expect(decisionOf(await admitAt(partnerId, t0 + 62 * MS, 3))).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('says when the oldest counted second leaves: RateLimit-Reset, and Retry-After on a refusal', async () => {
    const partnerId = randomUUID();
    const t0 = await secondAhead(5);
    // Alone in its second: it leaves 60.5 s later, said as 60 (the documented bound).
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
    // The first request leaves at t0 + 61 s; the refusals in between left nothing to wait for.
    expect(decisionOf(await admitAt(partnerId, t0 + 61 * MS, 2))).toMatchObject({ allowed: true, remaining: 0 });
  });

  it("keeps every count when Redis' clock steps back into a counted second and forward again", async () => {
    const partnerId = randomUUID();
    const t0 = await secondAhead(5);
    for (const atMs of [t0, t0 + 3 * MS, t0 + 4 * MS, t0 + 3 * MS + 500, t0 + 4 * MS + 200]) {
      expect(decisionOf(await admitAt(partnerId, atMs, 10))).toMatchObject({ allowed: true });
    }
    expect(await countedOf(partnerId)).toBe(5);
    // t0's second leaves, the total is recounted from the seconds left: t0+3 holds 2, t0+4 holds 2.
    expect(decisionOf(await admitAt(partnerId, t0 + 61 * MS, 10))).toMatchObject({ allowed: true, remaining: 5 });
    expect(await countedOf(partnerId)).toBe(5);
  });

  it('agrees with a plain model of the window over a long random run, clock steps back included, never holding more than its seconds', async () => {
    const partnerId = randomUUID();
    const limit = 40;
    const t0 = await secondAhead(5);
    // A fixed pseudo-random walk (a linear congruential generator): bursts, pauses and quiet gaps.
    let seed = 16;
    const next = (bound: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % bound;
    };
    const admittedAtMs: number[] = [];
    let atMs = t0;
    for (let step = 0; step < 1_000; step += 1) {
      const kind = next(20);
      // Mostly forward by under a second; at times a gap of up to 70 s, or Redis' clock stepping back up to 3 s.
      if (kind === 0) atMs += next(70 * MS);
      else if (kind === 1) atMs -= next(CLOCK_STEP_BACK_MS_MAX);
      else atMs += next(700);
      const counted = admittedAtMs.filter((at) => Math.floor(atMs / MS) - Math.floor(at / MS) < WINDOW_SECONDS);
      const decision = decisionOf(await admitAt(partnerId, atMs, limit));
      const allowed = counted.length < limit;
      if (allowed) counted.push(atMs);
      const oldestSecondMs = Math.floor(Math.min(...counted) / MS) * MS;
      const resetMs = oldestSecondMs + WINDOW_SECONDS * MS - atMs;
      expect({ step, ...decision }).toEqual({
        step,
        allowed,
        ...(allowed ? {} : { retryAfterSeconds: Math.min(Math.ceil(resetMs / MS), 60) }),
        limit,
        remaining: limit - counted.length,
        resetSeconds: Math.min(Math.ceil(resetMs / MS), 60),
      });
      admittedAtMs.splice(0, admittedAtMs.length, ...counted);
      // A field per second (seconds ahead of a clock that stepped back too) and the four named ones.
      expect(await redis.hlen(rateLimitKey(partnerId))).toBeLessThanOrEqual(
        WINDOW_SECONDS + CLOCK_STEP_BACK_MS_MAX / MS + 4,
      );
    }
  });

  it('keeps the key until its newest second leaves the window, never less after a clock stepping back', async () => {
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
    // The request's second leaves the window a second from now on Redis' clock.
    const t0 = await secondAhead(1 - WINDOW_SECONDS);
    await admitAt(partnerId, t0, 10);
    expect(await redis.pttl(rateLimitKey(partnerId))).toBeLessThanOrEqual(MS);
    await new Promise((resolve) => setTimeout(resolve, MS + 100));
    expect(await redis.exists(rateLimitKey(partnerId))).toBe(0);
  });
});
