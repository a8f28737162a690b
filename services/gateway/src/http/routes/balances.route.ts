import type { LedgerApi } from '../dependencies';
import { presentBalances } from '../presenters';
import type { OperationHandler } from './operation';

/** GET /v1/balances (scope read) → 200 `[{accountId, currency, available, held}]`, KES first. */
export function getBalancesHandler(deps: { ledger: Pick<LedgerApi, 'getBalances'> }): OperationHandler<'listBalances'> {
  return async ({ partnerId }, res) => {
    res.status(200).json(presentBalances(await deps.ledger.getBalances({ partnerId })));
  };
}
