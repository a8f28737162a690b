/**
 * Where an inbound USDT deposit goes, from trading's answer. "none" credits the
 * partner's balance at once; "hold" keeps it in suspense until a bounded
 * instant (so a sell order's hash attached late still finds it); "matched"
 * keeps it in suspense claimed by the order. Trading not answering is a hold
 * for a short window, never a loss and never a guess.
 */
export type DepositDecision =
  | { decision: 'matched'; orderId: string }
  | { decision: 'hold'; holdUntil: string }
  | { decision: 'none' }
  | { decision: 'unavailable' };

export type DepositPlan =
  | { status: 'credited' }
  | { status: 'held_for_attribution'; holdUntil: string }
  | { status: 'claimed'; orderId: string };

export interface DepositHoldLimits {
  /** How long a deposit waits when trading could not be asked. */
  unavailableHoldMs: number;
  /** The longest any hold may last, whatever trading asks. */
  holdMaxMs: number;
}

export function planDeposit(decision: DepositDecision, nowMs: number, limits: DepositHoldLimits): DepositPlan {
  if (decision.decision === 'matched') return { status: 'claimed', orderId: decision.orderId };
  if (decision.decision === 'none') return { status: 'credited' };
  const askedMs =
    decision.decision === 'unavailable' ? nowMs + limits.unavailableHoldMs : Date.parse(decision.holdUntil);
  if (Number.isNaN(askedMs) || askedMs <= nowMs) return { status: 'credited' };
  return {
    status: 'held_for_attribution',
    holdUntil: new Date(Math.min(askedMs, nowMs + limits.holdMaxMs)).toISOString(),
  };
}
