import type { RequestHandler } from 'express';
import type { LedgerApi } from '../dependencies';
import { partnerAuthOf } from '../locals';
import { presentBalances } from '../presenters';

/** GET /v1/balances (scope read) → 200 `[{accountId, currency, available, held}]`, KES first. */
export function getBalancesHandler(deps: { ledger: Pick<LedgerApi, 'getBalances'> }): RequestHandler {
  return async (_req, res) => {
    const balances = await deps.ledger.getBalances({ partnerId: partnerAuthOf(res).partnerId });
    res.status(200).json(presentBalances(balances));
  };
}
