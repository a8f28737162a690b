import type { ledger } from '@platform/proto';
import type { LedgerApi } from '../dependencies';
import { answerPage, answerPageJson } from '../paging';
import { presentBalances } from '../presenters';
import type { OperationHandler } from './operation';

/** GET /v1/balances (scope read) → 200 `[{accountId, currency, available, held}]`, KES first. */
export function getBalancesHandler(deps: { ledger: Pick<LedgerApi, 'getBalances'> }): OperationHandler<'listBalances'> {
  return async ({ partnerId }, res) => {
    res.status(200).json(presentBalances(await deps.ledger.getBalances({ partnerId })));
  };
}

/** A statement line as partners see it: the sign in the amount, and spelled out in `direction`. */
export function presentStatementLine(line: ledger.StatementLine) {
  return {
    id: line.lineId,
    accountId: line.accountId,
    currency: line.currency,
    type: line.type,
    amount: line.amount,
    direction: line.amount.startsWith('-') ? 'debit' : 'credit',
    availableAfter: line.availableAfter,
    createdAt: line.createdAt,
    resourceId: line.resourceId || null,
  };
}

/**
 * GET /v1/balances/{accountId}/transactions → 200 a page of the account's
 * statement, newest first. The ledger answers the page as the JSON array
 * answered here (built once, by its database), so the gateway neither decodes
 * nor re-encodes a line; a page the ledger answers as lines (one only its code
 * can present, or a ledger of the release before) is presented here.
 */
export function listAccountTransactionsHandler(deps: {
  ledger: Pick<LedgerApi, 'listStatement'>;
}): OperationHandler<'listAccountTransactions'> {
  return async ({ partnerId, params, query }, res) => {
    const result = await deps.ledger.listStatement({
      partnerId,
      accountId: params.accountId,
      from: query.from,
      to: query.to,
      limit: query.limit ?? 0,
      cursor: query.cursor ?? '',
      asJsonArray: true,
    });
    if (result.pageJson.byteLength === 0) {
      answerPage(res, result.lines.map(presentStatementLine), result.nextCursor);
      return;
    }
    answerPageJson(res, result.pageJson, result.nextCursor);
  };
}
