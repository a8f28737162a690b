/**
 * Giving value back: a hold voided and a daily-cap usage released, both
 * idempotent, so every non-settling path (refused create, abandoned create,
 * lapsed code, bank refusal) can run them again after a crash.
 */
import { AppError, isAppError } from '@platform/errors';
import type { LedgerApi, TradingLimitsApi } from './peers';

/** Voids the hold; a hold never placed, or already voided or expired, is fine. A posted one is a bug. */
export async function voidHoldIdempotently(
  ledgerApi: Pick<LedgerApi, 'voidHold' | 'getHold'>,
  holdId: string,
): Promise<void> {
  try {
    await ledgerApi.voidHold({ holdId });
  } catch (error) {
    if (isAppError(error) && error.code === 'LEDGER_HOLD_NOT_FOUND') return;
    if (!(isAppError(error) && error.code === 'LEDGER_HOLD_ALREADY_RESOLVED')) throw error;
    const hold = await ledgerApi.getHold({ holdId });
    if (hold.status === 'posted') throw new Error(`hold ${holdId} was posted; it cannot be given back`);
  }
}

export async function releaseCapIdempotently(trading: TradingLimitsApi, usageId: string): Promise<void> {
  await trading.releaseDailyCap({ usageId });
}

/** The ledger's refusal for a short balance, in the partner's words. */
export function mapHoldRefusal(
  error: unknown,
  insufficientCode: 'INSUFFICIENT_KES_BALANCE' | 'INSUFFICIENT_USDT_BALANCE',
): unknown {
  if (isAppError(error) && error.code === 'LEDGER_INSUFFICIENT_FUNDS') return new AppError(insufficientCode);
  return error;
}
