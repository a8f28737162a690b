/**
 * A deposit-mode sell order's expectation of its USDT, as trading registers it
 * with the ledger, which attributes inbound deposits from these registrations
 * and never calls trading: once before the partner learns of the order, again
 * with the hash the partner attaches, and on each of the scheduler's checks,
 * whose answer says whether a deposit was claimed for the order and whether
 * the ledger still takes one (open). Idempotent on the order id.
 */
import type { OrderRecord } from '../../domain/order';
import type { LedgerApi } from '../../adapters/peers/peers';

export interface SellDepositState {
  /** The ledger still takes a deposit for the order (its sendBefore is ahead on the ledger's clock). */
  open: boolean;
  /** The amount of the deposit the ledger claimed for the order; null while there is none. */
  depositUsdtAmount: string | null;
}

export async function expectSellDeposit(
  ledger: Pick<LedgerApi, 'expectUsdtDeposit'>,
  order: Pick<OrderRecord, 'orderId' | 'partnerId' | 'sendBefore' | 'txHash'>,
): Promise<SellDepositState> {
  if (!order.sendBefore) throw new Error(`deposit-mode sell order ${order.orderId} without sendBefore`);
  const answer = await ledger.expectUsdtDeposit({
    partnerId: order.partnerId,
    orderId: order.orderId,
    sendBefore: new Date(order.sendBefore).toISOString(),
    txHash: order.txHash ?? undefined,
  });
  const deposit = answer.deposit;
  const claimed = deposit !== undefined && deposit.status === 'claimed' && deposit.orderId === order.orderId;
  return { open: answer.open, depositUsdtAmount: claimed ? deposit.usdtAmount : null };
}

/**
 * When the scheduler next asks the ledger about an order still awaiting its
 * USDT: every pollMs once a hash is attached (only then can a deposit be
 * claimed for it); without one, at sendBefore; and every pollMs after
 * sendBefore until the ledger answers that it no longer takes a deposit.
 */
export function nextDepositCheck(now: Date, order: Pick<OrderRecord, 'sendBefore' | 'txHash'>, pollMs: number): Date {
  const polled = new Date(now.getTime() + pollMs);
  const sendBefore = order.sendBefore ? new Date(order.sendBefore) : null;
  if (sendBefore === null || sendBefore.getTime() <= now.getTime()) return polled;
  if (order.txHash === null) return sendBefore;
  return polled.getTime() < sendBefore.getTime() ? polled : sendBefore;
}
