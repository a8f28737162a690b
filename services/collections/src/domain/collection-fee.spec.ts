// Proves the collection fee arithmetic in integer cents: the percentage part is
// rounded up, the flat part added, the cap applied last, net = gross − fee
// exactly, and a fee that would take the whole deposit turns into a refund.
import { applyFee, feeMinorFor, feeTermsValid } from './collection-fee';

const terms = (percentBps: number, flatMinor: bigint, capMinor: bigint) => ({ percentBps, flatMinor, capMinor });

describe('collection fee', () => {
  it('rounds the percentage part up to the next cent and adds the flat part', () => {
    expect(feeMinorFor(10_000n, terms(100, 30n, 2_500n))).toBe(130n); // 1% of $100.00 + $0.30
    expect(feeMinorFor(10_001n, terms(100, 30n, 2_500n))).toBe(131n); // 100.01 cents rounds up to 101, + 30
    expect(feeMinorFor(1n, terms(1, 0n, 100n))).toBe(1n);
    expect(feeMinorFor(12_345n, terms(0, 0n, 0n))).toBe(0n);
  });

  it('applies the cap last', () => {
    expect(feeMinorFor(1_000_000n, terms(100, 30n, 2_500n))).toBe(2_500n); // 10,030 capped to 2,500
    expect(feeMinorFor(250_000n, terms(100, 0n, 2_500n))).toBe(2_500n); // exactly at the cap
  });

  it('keeps gross = fee + net exactly', () => {
    for (const gross of [48n, 999n, 10_000n, 123_457n, 99_999_999_999n]) {
      const outcome = applyFee(gross, terms(275, 45n, 5_000n));
      if (outcome.kind !== 'credit') throw new Error('expected a credit');
      expect(outcome.feeMinor + outcome.netMinor).toBe(gross);
      expect(outcome.netMinor).toBeGreaterThan(0n);
    }
  });

  it('refunds a deposit the fee would swallow whole', () => {
    expect(applyFee(30n, terms(100, 30n, 2_500n))).toEqual({
      kind: 'refund',
      reason: 'fee_exceeds_amount',
      grossMinor: 30n,
      feeMinor: 31n,
    });
    expect(applyFee(31n, terms(0, 31n, 31n)).kind).toBe('refund');
    expect(applyFee(32n, terms(0, 31n, 31n))).toEqual({ kind: 'credit', grossMinor: 32n, feeMinor: 31n, netMinor: 1n });
  });

  it('accepts only sane terms', () => {
    expect(feeTermsValid(terms(100, 30n, 2_500n))).toBe(true);
    expect(feeTermsValid(terms(0, 0n, 0n))).toBe(true);
    expect(feeTermsValid(terms(10_001, 0n, 0n))).toBe(false);
    expect(feeTermsValid(terms(100, 50n, 49n))).toBe(false);
    expect(feeTermsValid(terms(100, -1n, 49n))).toBe(false);
    expect(feeTermsValid(terms(1.5, 0n, 0n))).toBe(false);
  });
});
