// Proves the pure parts of request admission: how the script's reply is read,
// how the wait is rounded into whole seconds and which headers a state gives.
// The Lua script itself runs against real Redis in test/admission-script.int.spec.ts
// (atomic under concurrency; exact at second edges with a clock of the spec's own)
// and test/rate-limit.int.spec.ts (through the gateway).
import { interpretAdmissionReply, nonceKey, rateLimitKey, retryAfterSeconds, setRateLimitHeaders } from './rate-limit';

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

/** The script's packing (admissionScript): (remaining × 65,536 + reset ms) × 2 + admitted. */
const packed = (admitted: 0 | 1, remaining: number, resetMs: number) => (remaining * 65_536 + resetMs) * 2 + admitted;

describe('interpretAdmissionReply', () => {
  it('reads a replayed nonce, an admission and a refusal', () => {
    expect(interpretAdmissionReply(-1, 120)).toEqual({ nonceFresh: false });
    expect(interpretAdmissionReply(packed(1, 119, 59_500), 120)).toEqual({
      nonceFresh: true,
      rateLimit: { allowed: true, limit: 120, remaining: 119, resetSeconds: 60 },
    });
    expect(interpretAdmissionReply(packed(0, 0, 12_345), 120)).toEqual({
      nonceFresh: true,
      rateLimit: { allowed: false, retryAfterSeconds: 13, limit: 120, remaining: 0, resetSeconds: 13 },
    });
  });

  it('reads the largest reply exactly: the highest limit, a wait of the whole window', () => {
    expect(interpretAdmissionReply(packed(1, 99_999, 60_000), 100_000)).toEqual({
      nonceFresh: true,
      rateLimit: { allowed: true, limit: 100_000, remaining: 99_999, resetSeconds: 60 },
    });
    expect(interpretAdmissionReply(packed(1, 0, 1), 1)).toEqual({
      nonceFresh: true,
      rateLimit: { allowed: true, limit: 1, remaining: 0, resetSeconds: 1 },
    });
  });

  it.each([
    null,
    'OK',
    [1, 1, 119, 60_000],
    -2,
    0.5,
    packed(1, 0, 0),
    packed(1, 0, 60_001),
    packed(1, 120, 1_000),
    packed(0, 3, 1_000),
    2 ** 53,
  ])('treats %p as a bug', (reply) => {
    expect(() => interpretAdmissionReply(reply, 120)).toThrow(/unexpected reply/);
  });
});

describe('setRateLimitHeaders', () => {
  it('sets the IETF draft fields, in this order', () => {
    const headers: Array<[string, string]> = [];
    setRateLimitHeaders(
      { setHeader: (name, value) => headers.push([name, value]) },
      {
        limit: 120,
        remaining: 7,
        resetSeconds: 31,
      },
    );
    expect(headers).toEqual([
      ['RateLimit-Limit', '120'],
      ['RateLimit-Remaining', '7'],
      ['RateLimit-Reset', '31'],
    ]);
  });
});

describe('keys', () => {
  it('is one window per partner and one nonce key per API key and nonce', () => {
    expect(rateLimitKey('p1')).toBe('ratelimit:partner:p1:seconds');
    expect(nonceKey('pk_sandbox_x', 'n1')).toBe('nonce:pk_sandbox_x:n1');
  });
});
