// Proves the budget arithmetic: the window reaches back exactly windowMs from
// the wrong code being counted; the wrong code that brings the count to the
// budget spends it, one short does not; and the lock is set only by the count
// that spends it on an unlocked partner, never again by a later one racing it.
import {
  isBudgetSpent,
  shouldLock,
  windowStartOf,
  WRONG_CODE_WINDOW_MS_DEFAULT,
  WRONG_CODES_MAX_DEFAULT,
} from './wrong-code-budget';

const settings = { wrongCodesMax: 20, windowMs: 24 * 60 * 60_000 };

describe('wrong-code budget', () => {
  it('defaults to 20 wrong codes per rolling 24 hours', () => {
    expect({ wrongCodesMax: WRONG_CODES_MAX_DEFAULT, windowMs: WRONG_CODE_WINDOW_MS_DEFAULT }).toEqual(settings);
  });

  it('reaches back one window from the wrong code being counted', () => {
    expect(windowStartOf(new Date('2026-11-21T12:00:00.000Z'), settings)).toEqual(new Date('2026-11-20T12:00:00.000Z'));
    expect(windowStartOf(new Date('2026-11-21T12:00:00.000Z'), { wrongCodesMax: 3, windowMs: 60_000 })).toEqual(
      new Date('2026-11-21T11:59:00.000Z'),
    );
  });

  it('is spent by the wrong code that reaches the budget, not by the one before', () => {
    expect(isBudgetSpent(19, settings)).toBe(false);
    expect(isBudgetSpent(20, settings)).toBe(true);
    expect(isBudgetSpent(21, settings)).toBe(true);
    expect(isBudgetSpent(1, { wrongCodesMax: 1, windowMs: 60_000 })).toBe(true);
    expect(isBudgetSpent(0, { wrongCodesMax: 1, windowMs: 60_000 })).toBe(false);
  });

  it('locks once: only the count that spends the budget of an unlocked partner', () => {
    expect(shouldLock(19, false, settings)).toBe(false);
    expect(shouldLock(20, false, settings)).toBe(true);
    expect(shouldLock(21, true, settings)).toBe(false);
    expect(shouldLock(20, true, settings)).toBe(false);
  });
});
