/**
 * POST /v1/sandbox/usdt-deposits {txHash, usdtAmount} (scope sandbox, sandbox
 * mode only) → 201: a USDT deposit lands on the partner's deposit address.
 * The same txHash again returns the first deposit and credits nothing more.
 * No deposit address → 503 USDT_DEPOSIT_ADDRESS_NOT_ALLOCATED.
 */
import type { ledger } from '@platform/proto';
import type { LedgerApi } from '../dependencies';
import type { OperationHandler } from './operation';

/** The deposit as the partner sees it; `activityId` is the one `usdt_credit.received` carries. */
export function presentUsdtDeposit(deposit: ledger.UsdtDeposit) {
  return {
    activityId: deposit.depositId,
    txHash: deposit.txHash,
    amount: { currency: 'USDT', value: deposit.usdtAmount },
    status: deposit.status,
    receivedAt: deposit.receivedAt,
  };
}

export function simulateUsdtDepositHandler(deps: {
  ledger: Pick<LedgerApi, 'simulateUsdtDeposit'>;
}): OperationHandler<'sandboxUsdtDeposit'> {
  return async ({ partnerId, body }, res) => {
    const deposit = await deps.ledger.simulateUsdtDeposit({
      partnerId,
      txHash: body.txHash,
      usdtAmount: body.usdtAmount,
    });
    res.status(201).json(presentUsdtDeposit(deposit));
  };
}
