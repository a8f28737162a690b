/**
 * Where an inbound USDT deposit goes, from what the partner's sell orders
 * registered with the ledger (never from asking trading): an open order that
 * named the deposit's hash keeps it in suspense, claimed; open orders still
 * without a hash keep it in suspense until the latest of their send-before
 * times (bounded), so a hash registered late still finds it; otherwise it is
 * credited to the partner's balance at once.
 */

/** What the ledger knows of a partner's sell orders when one of its deposits arrives. */
export interface ExpectationsOfDeposit {
  /** The open order whose registered hash is the deposit's, if any. */
  claimingOrderId: string | null;
  /** The latest send_before of the partner's open expectations still without a hash. */
  latestUnhashedSendBefore: string | null;
}

export type DepositPlan =
  | { status: 'credited' }
  | { status: 'held_for_attribution'; holdUntil: string }
  | { status: 'claimed'; orderId: string };

export interface DepositHoldLimits {
  /** The longest any hold may last, whatever the orders' send-before times. */
  holdMaxMs: number;
}

export function planDeposit(expected: ExpectationsOfDeposit, nowMs: number, limits: DepositHoldLimits): DepositPlan {
  if (expected.claimingOrderId !== null) return { status: 'claimed', orderId: expected.claimingOrderId };
  const untilMs =
    expected.latestUnhashedSendBefore === null ? Number.NaN : Date.parse(expected.latestUnhashedSendBefore);
  if (Number.isNaN(untilMs) || untilMs <= nowMs) return { status: 'credited' };
  return {
    status: 'held_for_attribution',
    holdUntil: new Date(Math.min(untilMs, nowMs + limits.holdMaxMs)).toISOString(),
  };
}
