// Proves the pure parts of request admission: how the script's reply is read,
// how the wait is rounded into whole seconds and which headers a state gives.
// The Lua script itself runs against real Redis in test/admission-script.int.spec.ts
// (atomic under concurrency) and test/rate-limit.int.spec.ts (through the gateway).
import { interpretAdmissionReply, nonceKey, rateLimitHeaders, rateLimitKey, retryAfterSeconds } from './rate-limit';

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

describe('interpretAdmissionReply', () => {
  it('reads a replayed nonce, an admission and a refusal', () => {
    expect(interpretAdmissionReply([0, 0, 0, 0], 120)).toEqual({ nonceFresh: false });
    expect(interpretAdmissionReply([1, 1, 119, 60_000], 120)).toEqual({
      nonceFresh: true,
      rateLimit: { allowed: true, limit: 120, remaining: 119, resetSeconds: 60 },
    });
    expect(interpretAdmissionReply([1, 0, 0, 12_345], 120)).toEqual({
      nonceFresh: true,
      rateLimit: { allowed: false, retryAfterSeconds: 13, limit: 120, remaining: 0, resetSeconds: 13 },
    });
  });

  it.each([null, 'OK', [1], [1, 0], [1, 1, '0', 5], [1, 1, 0, 0.5], [1, 1, 0, 0, 0]])('treats %p as a bug', (reply) => {
    expect(() => interpretAdmissionReply(reply, 120)).toThrow(/unexpected reply/);
  });
});

describe('rateLimitHeaders', () => {
  it('names the IETF draft fields', () => {
    expect(rateLimitHeaders({ limit: 120, remaining: 7, resetSeconds: 31 })).toEqual({
      'RateLimit-Limit': '120',
      'RateLimit-Remaining': '7',
      'RateLimit-Reset': '31',
    });
  });
});

describe('keys', () => {
  it('is one window per partner and one nonce key per API key and nonce', () => {
    expect(rateLimitKey('p1')).toBe('ratelimit:partner:p1');
    expect(nonceKey('pk_sandbox_x', 'n1')).toBe('nonce:pk_sandbox_x:n1');
  });
});
