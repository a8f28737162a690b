// Proves the retry schedule: 7 attempts in total over about
// 30 minutes, each delay within ±20 % of its step, all scaled by
// SANDBOX_TIME_SCALE, and Retry-After honoured only up to the last step.
import {
  cryptoRandomUnit,
  DELIVERY_ATTEMPTS_MAX,
  honourRetryAfter,
  RETRY_AFTER_DELAY_MS_MAX,
  RETRY_DELAYS_MS,
  retryDelayMs,
} from './retry-schedule';

const lowest = () => 0;
const middle = () => 0.5;
const highest = () => 0.999999;

describe('retryDelayMs', () => {
  it('allows 7 attempts in total: 6 delays, then dead', () => {
    expect(DELIVERY_ATTEMPTS_MAX).toBe(7);
    const delays = [1, 2, 3, 4, 5, 6].map((attempt) => retryDelayMs(attempt, 1, middle));
    expect(delays).toEqual([30_000, 60_000, 120_000, 240_000, 480_000, 900_000]);
    expect(retryDelayMs(7, 1, middle)).toBeNull();
    expect(retryDelayMs(8, 1, middle)).toBeNull();
  });

  it('spans about 30 minutes in all', () => {
    const totalMs = RETRY_DELAYS_MS.reduce((sum, delay) => sum + delay, 0);
    expect(totalMs).toBe(30.5 * 60_000);
    const shortestMs = [1, 2, 3, 4, 5, 6].reduce((sum, attempt) => sum + (retryDelayMs(attempt, 1, lowest) ?? 0), 0);
    const longestMs = [1, 2, 3, 4, 5, 6].reduce((sum, attempt) => sum + (retryDelayMs(attempt, 1, highest) ?? 0), 0);
    expect(shortestMs).toBeGreaterThanOrEqual(24 * 60_000);
    expect(longestMs).toBeLessThanOrEqual(37 * 60_000);
  });

  it('keeps jitter within ±20 % of each step', () => {
    RETRY_DELAYS_MS.forEach((baseMs, index) => {
      expect(retryDelayMs(index + 1, 1, lowest)).toBe(Math.round(baseMs * 0.8));
      expect(retryDelayMs(index + 1, 1, highest)).toBeLessThanOrEqual(Math.round(baseMs * 1.2));
      expect(retryDelayMs(index + 1, 1, highest)).toBeGreaterThan(Math.round(baseMs * 1.19));
    });
  });

  it('stays within bounds with real randomness and is not constant', () => {
    const samples = Array.from({ length: 200 }, () => retryDelayMs(1, 1, cryptoRandomUnit) ?? 0);
    for (const sample of samples) {
      expect(sample).toBeGreaterThanOrEqual(24_000);
      expect(sample).toBeLessThanOrEqual(36_000);
    }
    expect(new Set(samples).size).toBeGreaterThan(10);
  });

  it('multiplies every delay by the time scale (0.05: 30 s becomes 1.5 s)', () => {
    expect(retryDelayMs(1, 0.05, middle)).toBe(1_500);
    expect(retryDelayMs(1, 0.05, lowest)).toBe(1_200);
    expect(retryDelayMs(6, 0.05, middle)).toBe(45_000);
    expect(retryDelayMs(1, 2, middle)).toBe(60_000);
  });

  it('refuses a nonsensical attempt number', () => {
    expect(() => retryDelayMs(0, 1, middle)).toThrow(RangeError);
    expect(() => retryDelayMs(1.5, 1, middle)).toThrow(RangeError);
  });
});

describe('honourRetryAfter', () => {
  it('keeps the schedule when nothing or something shorter is asked', () => {
    expect(honourRetryAfter(30_000, null, 1)).toBe(30_000);
    expect(honourRetryAfter(30_000, 10_000, 1)).toBe(30_000);
  });

  it('waits longer when asked', () => {
    expect(honourRetryAfter(30_000, 120_000, 1)).toBe(120_000);
  });

  it('caps the request at 15 minutes times the scale', () => {
    expect(RETRY_AFTER_DELAY_MS_MAX).toBe(900_000);
    expect(honourRetryAfter(30_000, 86_400_000, 1)).toBe(900_000);
    expect(honourRetryAfter(1_500, 86_400_000, 0.05)).toBe(45_000);
  });

  it('never shortens a scheduled delay that is already above the cap', () => {
    expect(honourRetryAfter(1_000_000, 86_400_000, 1)).toBe(1_000_000);
  });
});
