// Proves the pure parts of the partner rate limit: how the script's reply is
// read and how the wait is rounded into Retry-After seconds. The Lua script
// itself is exercised against real Redis by test/rate-limit.int.spec.ts.
import { interpretRateLimitReply, rateLimitKey, retryAfterSeconds } from './rate-limit';

describe('retryAfterSeconds', () => {
  it.each([
    [0, 1],
    [1, 1],
    [999, 1],
    [1_000, 1],
    [1_001, 2],
    [59_999, 60],
    [60_000, 60],
    [120_000, 60],
    [-5, 1],
  ])('%p ms -> %p s', (waitMs, seconds) => {
    expect(retryAfterSeconds(waitMs)).toBe(seconds);
  });
});

describe('interpretRateLimitReply', () => {
  it('reads an admission and a refusal', () => {
    expect(interpretRateLimitReply([1, 0])).toEqual({ allowed: true });
    expect(interpretRateLimitReply([0, 12_345])).toEqual({ allowed: false, retryAfterSeconds: 13 });
  });

  it.each([null, 'OK', [1], [1, '0'], [1, 0, 0]])('treats %p as a bug', (reply) => {
    expect(() => interpretRateLimitReply(reply)).toThrow(/unexpected reply/);
  });
});

describe('rateLimitKey', () => {
  it('is one key per partner', () => {
    expect(rateLimitKey('p1')).toBe('ratelimit:partner:p1');
  });
});
