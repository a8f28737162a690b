/** The sandbox rate feed and KES credits (scope sandbox; registered in sandbox mode only). */
import type { LedgerApi, TradingApi } from '../dependencies';
import { presentKesCredit, presentSandboxRate } from '../presenters';
import type { OperationHandler } from './operation';

/** POST /v1/sandbox/rates → 200 `{bid, ask, halted, observedAt}`. */
export function setSandboxRateHandler(deps: {
  trading: Pick<TradingApi, 'setSandboxRate'>;
}): OperationHandler<'sandboxSetRate'> {
  return async ({ partnerId, body }, res) => {
    const rate = await deps.trading.setSandboxRate({
      partnerId,
      bid: body.bid,
      ask: body.ask,
      halted: body.halted ?? false,
    });
    res.status(200).json(presentSandboxRate(rate));
  };
}

/** POST /v1/sandbox/kes-credits → 201 the credit as `credit.received` will describe it. */
export function simulateKesCreditHandler(deps: {
  ledger: Pick<LedgerApi, 'simulateKesCredit'>;
}): OperationHandler<'sandboxKesCredit'> {
  return async ({ partnerId, body }, res) => {
    const credit = await deps.ledger.simulateKesCredit({
      partnerId,
      amountKes: body.amount,
      railReference: body.reference,
    });
    res.status(201).json(presentKesCredit(credit));
  };
}
