// Proves Retry-After is read in both of its forms (seconds, HTTP date) and that
// anything else is ignored rather than trusted.
import { parseRetryAfterMs } from './retry-after';

const nowMs = Date.parse('2026-01-01T00:00:00.000Z');

describe('parseRetryAfterMs', () => {
  it('reads delta-seconds', () => {
    expect(parseRetryAfterMs('120', nowMs)).toBe(120_000);
    expect(parseRetryAfterMs(' 0 ', nowMs)).toBe(0);
  });

  it('reads an IMF-fixdate relative to now', () => {
    expect(parseRetryAfterMs('Thu, 01 Jan 2026 00:02:00 GMT', nowMs)).toBe(120_000);
  });

  it('reads the obsolete RFC 850 and asctime forms as GMT', () => {
    expect(parseRetryAfterMs('Thursday, 01-Jan-26 00:01:00 GMT', nowMs)).toBe(60_000);
    expect(parseRetryAfterMs('Thu Jan  1 00:00:30 2026', nowMs)).toBe(30_000);
  });

  it('treats a date in the past as no wait', () => {
    expect(parseRetryAfterMs('Wed, 31 Dec 2025 23:00:00 GMT', nowMs)).toBe(0);
  });

  it.each([
    ['absent', undefined],
    ['empty', ''],
    ['negative', '-5'],
    ['fractional', '1.5'],
    ['with unit', '10s'],
    ['too many digits', '12345678901'],
    ['garbage', 'soon'],
    ['not a date', 'Thu, 99 Foo 2026 99:99:99 GMT'],
    ['too long', `Thu, 01 Jan 2026 00:02:00 GMT${' '.repeat(80)}x`],
  ])('ignores %s', (_, header) => {
    expect(parseRetryAfterMs(header, nowMs)).toBeNull();
  });
});
