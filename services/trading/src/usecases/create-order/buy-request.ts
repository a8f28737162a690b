/** A buy's expectedUsdtAmount: shape checked first, compared with the quote later (both buy kinds). */
import { AppError, validationFailed } from '@platform/errors';
import { Big, parseDecimal } from '@platform/money';
import type { CreateOrderCommand } from './funding-strategy';

/** When given: a positive amount with at most 6 decimals. */
export function expectedUsdtOf(value: string | undefined): Big | null {
  if (value === undefined) return null;
  const parsed = parseDecimal(value, 6);
  if (parsed === null || parsed.lte(0)) throw validationFailed(['expectedUsdtAmount']);
  return parsed;
}

export function assertExpectedUsdt(command: CreateOrderCommand, usdtAmount: string): void {
  const expected = command.side === 'buy' ? expectedUsdtOf(command.expectedUsdtAmount) : null;
  if (expected && !expected.eq(usdtAmount)) throw new AppError('EXPECTED_AMOUNT_MISMATCH');
}
