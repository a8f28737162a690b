// Proves the staleness boundary: an observation exactly at the limit is live,
// one millisecond older is not, and one implausibly far in the future is not.
import { isRateLive, RATE_OBSERVED_AHEAD_MS_MAX } from './rate-freshness';

const now = new Date('2024-11-21T08:00:00.000Z');
const ago = (ms: number) => new Date(now.getTime() - ms);

describe('isRateLive', () => {
  it('is live up to and including the limit', () => {
    expect(isRateLive(ago(0), now, 3_000)).toBe(true);
    expect(isRateLive(ago(3_000), now, 3_000)).toBe(true);
    expect(isRateLive(ago(3_001), now, 3_000)).toBe(false);
  });

  it('tolerates a little clock skew ahead, not more', () => {
    expect(isRateLive(ago(-RATE_OBSERVED_AHEAD_MS_MAX), now, 3_000)).toBe(true);
    expect(isRateLive(ago(-RATE_OBSERVED_AHEAD_MS_MAX - 1), now, 3_000)).toBe(false);
  });

  it('is never live for an invalid date', () => {
    expect(isRateLive(new Date(Number.NaN), now, 3_000)).toBe(false);
  });
});
