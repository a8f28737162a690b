// Proves the quote lifetime is scaled by SANDBOX_TIME_SCALE in sandbox mode only.
import { quoteExpiresAt, quoteLifetimeMs } from './quote-lifetime';

describe('quoteLifetimeMs', () => {
  it('scales in sandbox mode', () => {
    expect(quoteLifetimeMs(30_000, 'sandbox', 1)).toBe(30_000);
    expect(quoteLifetimeMs(30_000, 'sandbox', 0.05)).toBe(1_500);
    expect(quoteLifetimeMs(30_000, 'sandbox', 2)).toBe(60_000);
  });

  it('never scales in production', () => {
    expect(quoteLifetimeMs(30_000, 'production', 0.05)).toBe(30_000);
  });

  it('never drops below 1 ms', () => {
    expect(quoteLifetimeMs(1, 'sandbox', 0.001)).toBe(1);
  });

  it('expires at creation plus the lifetime, to the millisecond', () => {
    expect(quoteExpiresAt(new Date('2024-11-21T08:00:00.000Z'), 1_500).toISOString()).toBe('2024-11-21T08:00:01.500Z');
  });
});
