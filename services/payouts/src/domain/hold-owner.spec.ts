// Proves payouts' hold owners round-trip and the reconciliation verdict: a pending hold is
// voided only when its transfer or send is gone or final, and kept for every live status
// (a confirmed transfer waiting on the bank above all).
import { holdOwner, holdVerdict, OwnerStatus, parseHoldOwner } from './hold-owner';

const ID = '3f1c2b9e-8a47-4d2e-9b1a-6c5d4e3f2a10';

describe('hold owners', () => {
  it('names a transfer or a USDT send and reads it back', () => {
    expect(holdOwner('transfer', ID)).toBe(`payouts:transfer:${ID}`);
    expect(parseHoldOwner(holdOwner('transfer', ID))).toEqual({ kind: 'transfer', id: ID });
    expect(parseHoldOwner(holdOwner('usdt_send', ID))).toEqual({ kind: 'usdt_send', id: ID });
  });

  it('reads nothing from an absent, foreign or malformed owner', () => {
    for (const owner of [
      undefined,
      '',
      `trading:order:${ID}`,
      `payouts:order:${ID}`,
      'payouts:transfer:not-a-uuid',
      `payouts:transfer:${ID}:x`,
      `payouts:transfer:${ID.toUpperCase()}`,
    ]) {
      expect({ owner, parsed: parseHoldOwner(owner) }).toEqual({ owner, parsed: null });
    }
  });
});

describe('holdVerdict', () => {
  it('voids a hold whose owner row is gone', () => {
    expect(holdVerdict(null)).toBe('void');
  });

  it('voids a hold whose owner is final: its own flow resolved the hold before getting there', () => {
    for (const status of ['settled', 'failed', 'expired'] as OwnerStatus[])
      expect({ status, verdict: holdVerdict(status) }).toEqual({ status, verdict: 'void' });
  });

  it('keeps the hold of every live owner, however old', () => {
    for (const status of ['creating', 'awaiting_confirmation', 'confirmed'] as OwnerStatus[])
      expect({ status, verdict: holdVerdict(status) }).toEqual({ status, verdict: 'keep' });
  });
});
