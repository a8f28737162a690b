// Proves the cap's minute arithmetic at its edges: which minute a time falls in
// (the last millisecond of a minute, the first of the next, before the epoch),
// where a reservation's window starts (1,441 minutes back, so the exact 24 hours
// are always inside it) and exactly when a usage stops counting. Then, for
// seeded-random usage times, that a usage counts at every instant of its own 24
// hours and never past its documented end. A clock reading earlier than the
// partner's window is the database's to handle: test/cap-window.int.spec.ts.
import { CAP_BUCKET_MS, CAP_WINDOW_BUCKETS, capBucketStart, capUsageFreedAt, capWindowStart } from './cap-window';
import { DAILY_CAP_WINDOW_MS } from './daily-cap';

const at = (iso: string) => new Date(iso);
const iso = (date: Date) => date.toISOString();

/** Whether a usage counted at `createdAt` is seen by a reservation counted at `reservedAt`. */
function counts(createdAt: Date, reservedAt: Date): boolean {
  return capBucketStart(createdAt).getTime() >= capWindowStart(reservedAt).getTime();
}

describe('capBucketStart: the UTC minute', () => {
  it.each([
    ['2030-01-01T10:00:00.000Z', '2030-01-01T10:00:00.000Z'],
    ['2030-01-01T10:00:00.001Z', '2030-01-01T10:00:00.000Z'],
    ['2030-01-01T10:00:59.999Z', '2030-01-01T10:00:00.000Z'],
    ['2030-01-01T10:01:00.000Z', '2030-01-01T10:01:00.000Z'],
    ['2030-12-31T23:59:59.999Z', '2030-12-31T23:59:00.000Z'],
    ['1969-12-31T23:59:30.000Z', '1969-12-31T23:59:00.000Z'], // floor, not toward zero
  ])('%s is in the minute of %s', (time, minute) => {
    expect(iso(capBucketStart(at(time)))).toBe(minute);
  });

  it('refuses an invalid date rather than counting it nowhere', () => {
    expect(() => capBucketStart(new Date(Number.NaN))).toThrow('not a valid date');
  });
});

describe('capWindowStart: 24 hours before the minute', () => {
  it('covers 1,441 minutes', () => {
    expect(CAP_WINDOW_BUCKETS).toBe(1441);
    const reservedAt = at('2030-01-02T10:00:45.000Z');
    const minutes = (reservedAt.getTime() - capWindowStart(reservedAt).getTime()) / CAP_BUCKET_MS;
    expect(Math.floor(minutes) + 1).toBe(CAP_WINDOW_BUCKETS);
  });

  it.each([
    ['2030-01-02T10:00:00.000Z', '2030-01-01T10:00:00.000Z'],
    ['2030-01-02T10:00:59.999Z', '2030-01-01T10:00:00.000Z'],
    ['2030-01-02T10:01:00.000Z', '2030-01-01T10:01:00.000Z'],
  ])('a reservation at %s sees minutes from %s', (reservedAt, from) => {
    expect(iso(capWindowStart(at(reservedAt)))).toBe(from);
  });
});

describe('when a usage stops counting', () => {
  const createdAt = at('2030-01-01T10:00:30.000Z');

  it('is the start of its minute + 24 h + 1 min', () => {
    expect(iso(capUsageFreedAt(createdAt))).toBe('2030-01-02T10:01:00.000Z');
  });

  it('counts until the millisecond before, and not from that instant', () => {
    expect(counts(createdAt, at('2030-01-02T10:00:30.000Z'))).toBe(true); // exactly 24 h later: still counts
    expect(counts(createdAt, at('2030-01-02T10:00:59.999Z'))).toBe(true);
    expect(counts(createdAt, at('2030-01-02T10:01:00.000Z'))).toBe(false);
  });

  it('counts for reservations made before it (another replica counted it first)', () => {
    expect(counts(createdAt, at('2030-01-01T09:00:00.000Z'))).toBe(true);
  });

  it('counts at every instant of its own 24 hours, and stops within a minute after them (seeded random)', () => {
    let seed = 0x2545f491;
    const next = () => {
      // xorshift32: the same sequence on every run.
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return seed >>> 0;
    };
    for (let index = 0; index < 5_000; index += 1) {
      const created = new Date(Date.UTC(2030, 0, 1) + (next() % (7 * DAILY_CAP_WINDOW_MS)));
      const within = new Date(created.getTime() + (next() % DAILY_CAP_WINDOW_MS));
      expect(counts(created, within)).toBe(true);
      expect(counts(created, new Date(created.getTime() + DAILY_CAP_WINDOW_MS))).toBe(true);
      const freedAt = capUsageFreedAt(created).getTime();
      expect(freedAt - created.getTime()).toBeGreaterThan(DAILY_CAP_WINDOW_MS);
      expect(freedAt - created.getTime()).toBeLessThanOrEqual(DAILY_CAP_WINDOW_MS + CAP_BUCKET_MS);
      expect(counts(created, new Date(freedAt - 1))).toBe(true);
      expect(counts(created, new Date(freedAt))).toBe(false);
    }
  });
});
