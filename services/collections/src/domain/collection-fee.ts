/**
 * Collection fees in integer minor units (cents), never floating point:
 * fee = min(cap, ceil(gross × bps / 10000) + flat), the percentage rounded up
 * (in the service's favour), net = gross − fee exactly. A fee that would take
 * the whole contribution (fee ≥ gross) is not charged: the deposit is
 * returned to the payer instead (`fee_exceeds_amount`), so a credit is always
 * a positive net.
 */
export const BASIS_POINTS_PER_UNIT = 10_000n;
export const FEE_BPS_MAX = 10_000;
/** Ten million dollars in cents: no flat fee or cap above it is a sane setting. */
export const FEE_MINOR_MAX = 1_000_000_000n;

export interface FeeTerms {
  percentBps: number;
  flatMinor: bigint;
  capMinor: bigint;
}

export type FeeOutcome =
  | { kind: 'credit'; grossMinor: bigint; feeMinor: bigint; netMinor: bigint }
  | { kind: 'refund'; reason: 'fee_exceeds_amount'; grossMinor: bigint; feeMinor: bigint };

/** Terms an operator may set: bps 0..10000, 0 ≤ flat ≤ cap ≤ FEE_MINOR_MAX. */
export function feeTermsValid(terms: FeeTerms): boolean {
  return (
    Number.isInteger(terms.percentBps) &&
    terms.percentBps >= 0 &&
    terms.percentBps <= FEE_BPS_MAX &&
    terms.flatMinor >= 0n &&
    terms.capMinor >= terms.flatMinor &&
    terms.capMinor <= FEE_MINOR_MAX
  );
}

function ceilDivide(numerator: bigint, denominator: bigint): bigint {
  return (numerator + denominator - 1n) / denominator;
}

export function feeMinorFor(grossMinor: bigint, terms: FeeTerms): bigint {
  const percentMinor = ceilDivide(grossMinor * BigInt(terms.percentBps), BASIS_POINTS_PER_UNIT);
  const uncapped = percentMinor + terms.flatMinor;
  return uncapped < terms.capMinor ? uncapped : terms.capMinor;
}

export function applyFee(grossMinor: bigint, terms: FeeTerms): FeeOutcome {
  if (grossMinor <= 0n) throw new Error(`gross must be positive, got ${grossMinor}`);
  const feeMinor = feeMinorFor(grossMinor, terms);
  if (feeMinor >= grossMinor) return { kind: 'refund', reason: 'fee_exceeds_amount', grossMinor, feeMinor };
  return { kind: 'credit', grossMinor, feeMinor, netMinor: grossMinor - feeMinor };
}
