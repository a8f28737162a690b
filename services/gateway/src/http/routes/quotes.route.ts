import type { RequestHandler } from 'express';
import { z } from 'zod';
import type { TradingApi } from '../dependencies';
import { partnerAuthOf, rawBodyOf } from '../locals';
import { presentQuote } from '../presenters';
import { parseJsonObject, validateBody } from '../validation';
import { positiveAmount } from './amount-schemas';

export const quoteRequestSchema = z.object({
  side: z.enum(['buy', 'sell']),
  kesAmount: positiveAmount('KES').optional(),
  usdtAmount: positiveAmount('USDT').optional(),
}).strict();

/** Contract decisions section 3: exactly one of the two amounts; both or neither names both. */
export function exactlyOneAmount(body: Record<string, unknown>): string[] {
  const hasKes = body.kesAmount !== undefined;
  const hasUsdt = body.usdtAmount !== undefined;
  return hasKes === hasUsdt ? ['kesAmount', 'usdtAmount'] : [];
}

/** POST /v1/quotes (scope trade) → 201 quote. */
export function createQuoteHandler(deps: { trading: Pick<TradingApi, 'createQuote'> }): RequestHandler {
  return async (req, res) => {
    const body = validateBody(quoteRequestSchema, parseJsonObject(rawBodyOf(res), req.headers['content-type']), exactlyOneAmount);
    const quote = await deps.trading.createQuote({
      partnerId: partnerAuthOf(res).partnerId,
      side: body.side,
      kesAmount: body.kesAmount,
      usdtAmount: body.usdtAmount,
    });
    res.status(201).json(presentQuote(quote));
  };
}
