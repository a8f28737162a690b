// Proves each trading answer books a deposit where the policy says: balance at once, bounded hold, or claimed.
import { planDeposit } from './deposit-plan';

const now = Date.parse('2026-01-01T00:00:00.000Z');
const limits = { unavailableHoldMs: 60_000, holdMaxMs: 3_600_000 };

describe('deposit plan', () => {
  it('credits at once when no order can take it', () => {
    expect(planDeposit({ decision: 'none' }, now, limits)).toEqual({ status: 'credited' });
  });

  it('holds until the asked instant, never beyond the maximum, and credits when it has passed', () => {
    expect(planDeposit({ decision: 'hold', holdUntil: '2026-01-01T00:10:00.000Z' }, now, limits)).toEqual({
      status: 'held_for_attribution',
      holdUntil: '2026-01-01T00:10:00.000Z',
    });
    expect(planDeposit({ decision: 'hold', holdUntil: '2026-01-02T00:00:00.000Z' }, now, limits)).toEqual({
      status: 'held_for_attribution',
      holdUntil: '2026-01-01T01:00:00.000Z',
    });
    expect(planDeposit({ decision: 'hold', holdUntil: '2025-12-31T00:00:00.000Z' }, now, limits)).toEqual({
      status: 'credited',
    });
  });

  it('holds for the short window when trading did not answer', () => {
    expect(planDeposit({ decision: 'unavailable' }, now, limits)).toEqual({
      status: 'held_for_attribution',
      holdUntil: '2026-01-01T00:01:00.000Z',
    });
  });

  it('keeps a matched deposit for its order', () => {
    expect(planDeposit({ decision: 'matched', orderId: 'o-1' }, now, limits)).toEqual({
      status: 'claimed',
      orderId: 'o-1',
    });
  });
});
