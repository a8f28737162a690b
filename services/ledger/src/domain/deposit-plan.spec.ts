// Proves each state of the partner's registered expectations books a deposit where the policy says:
// claimed by the order naming its hash, held until the latest send-before (bounded), or credited at once.
import { planDeposit } from './deposit-plan';

const now = Date.parse('2026-01-01T00:00:00.000Z');
const limits = { holdMaxMs: 3_600_000 };
const nothing = { claimingOrderId: null, latestUnhashedSendBefore: null };

describe('deposit plan', () => {
  it('credits at once when no open order expects a deposit', () => {
    expect(planDeposit(nothing, now, limits)).toEqual({ status: 'credited' });
  });

  it('holds until the latest send-before, never beyond the maximum, and credits when it has passed', () => {
    const until = (latestUnhashedSendBefore: string) => ({ claimingOrderId: null, latestUnhashedSendBefore });
    expect(planDeposit(until('2026-01-01T00:10:00.000Z'), now, limits)).toEqual({
      status: 'held_for_attribution',
      holdUntil: '2026-01-01T00:10:00.000Z',
    });
    expect(planDeposit(until('2026-01-02T00:00:00.000Z'), now, limits)).toEqual({
      status: 'held_for_attribution',
      holdUntil: '2026-01-01T01:00:00.000Z',
    });
    expect(planDeposit(until('2025-12-31T00:00:00.000Z'), now, limits)).toEqual({ status: 'credited' });
  });

  it('keeps a deposit whose hash an order registered for that order, even while others wait for a hash', () => {
    expect(
      planDeposit({ claimingOrderId: 'o-1', latestUnhashedSendBefore: '2026-01-01T00:10:00.000Z' }, now, limits),
    ).toEqual({ status: 'claimed', orderId: 'o-1' });
  });
});
