// Proves the admission script (nonce claim + rate-limit count in one Lua call)
// atomic under concurrency against the test stack's real Redis: many requests
// of one partner fired at once admit exactly the limit, with every remaining
// count from limit-1 down to 0 handed out once; the same nonce sent many times
// at once is fresh exactly once; replays and refusals are never counted; and a
// Redis that lost its script cache loads it again without losing a request.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { createLogger } from '@platform/logger';
import { loadTestStack } from '@platform/testing';
import { RedisRequestAdmission } from '../src/adapters/redis-admission';
import { RATE_LIMIT_WINDOW_MS, rateLimitKey } from '../src/domain/rate-limit';

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
  expect(await redis.zcard(rateLimitKey(partnerId))).toBe(LIMIT);
});

it('claims one nonce once, whatever the number of concurrent attempts, and counts only that one', async () => {
  const partnerId = randomUUID();
  const nonce = randomUUID();
  const results = await Promise.all(Array.from({ length: 100 }, () => admission.admit(request(partnerId, nonce))));
  expect(results.filter((result) => result.nonceFresh)).toHaveLength(1);
  expect(await redis.zcard(rateLimitKey(partnerId))).toBe(1);
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
  expect(await redis.zcard(rateLimitKey(partnerId))).toBe(1);
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
