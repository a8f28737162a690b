/** POST /v1/quotes (scope trade) → 201 quote. */
import type { TradingApi } from '../dependencies';
import { presentQuote } from '../presenters';
import type { OperationHandler } from './operation';

export function createQuoteHandler(deps: {
  trading: Pick<TradingApi, 'createQuote'>;
}): OperationHandler<'createQuote'> {
  return async ({ partnerId, body }, res) => {
    const quote = await deps.trading.createQuote({
      partnerId,
      side: body.side,
      kesAmount: body.kesAmount,
      usdtAmount: body.usdtAmount,
    });
    res.status(201).json(presentQuote(quote));
  };
}
