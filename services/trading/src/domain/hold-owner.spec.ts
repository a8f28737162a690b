// Proves trading's hold owners round-trip and the reconciliation verdict: a pending hold is
// voided only when its order is gone or final, and kept for every live status (a funded
// sell waiting on its proceeds above all).
import { holdVerdict, orderHoldOwner, orderIdOfHoldOwner } from './hold-owner';
import { ORDER_STATUSES } from './order';

const ID = '3f1c2b9e-8a47-4d2e-9b1a-6c5d4e3f2a10';

describe('hold owners', () => {
  it('names an order and reads it back', () => {
    expect(orderHoldOwner(ID)).toBe(`trading:order:${ID}`);
    expect(orderIdOfHoldOwner(orderHoldOwner(ID))).toBe(ID);
  });

  it('reads nothing from an absent, foreign or malformed owner', () => {
    for (const owner of [
      undefined,
      '',
      `payouts:transfer:${ID}`,
      `trading:quote:${ID}`,
      'trading:order:not-a-uuid',
      `trading:order:${ID}:x`,
      `trading:order:${ID.toUpperCase()}`,
    ]) {
      expect({ owner, orderId: orderIdOfHoldOwner(owner) }).toEqual({ owner, orderId: null });
    }
  });
});

describe('holdVerdict', () => {
  it('voids a hold whose order is gone', () => {
    expect(holdVerdict(null)).toBe('void');
  });

  it('voids the hold of a final order and keeps that of every live one', () => {
    const verdicts = Object.fromEntries(ORDER_STATUSES.map((status) => [status, holdVerdict(status)]));
    expect(verdicts).toEqual({
      awaiting_usdt: 'keep',
      awaiting_payment: 'keep',
      funds_reserved: 'keep',
      settled: 'void',
      rejected: 'void',
      expired: 'void',
    });
  });
});
