/**
 * The transfer fee. The contract shows a `fee` {currency, value} on every
 * transfer and a hold of amount plus fee, but no schedule; ours is a flat
 * KES amount per transfer (TRANSFER_FEE_FLAT_KES), the same on every rail,
 * documented in docs/api-behaviour.md. The fee is taken only when the bank
 * settles: it is part of the hold and posted to fee revenue with the amount.
 */
import { Big } from '@platform/money';

export function holdAmountKes(amountKes: Big, feeKes: Big): Big {
  return amountKes.plus(feeKes);
}
