/** The sandbox helpers of contract decisions section 6 (scope sandbox; registered in sandbox mode only). */
import type { RequestHandler } from 'express';
import { parseDecimal, RATE_SCALE } from '@platform/money';
import { z } from 'zod';
import type { LedgerApi, TradingApi } from '../dependencies';
import { partnerAuthOf, rawBodyOf } from '../locals';
import { presentKesCredit, presentSandboxRate } from '../presenters';
import { parseJsonObject, validateBody } from '../validation';
import { positiveAmount, positiveRate } from './amount-schemas';

export const sandboxRateSchema = z.object({
  bid: positiveRate(),
  ask: positiveRate(),
  /** Additive: stops this partner's sandbox feed, so the rate goes stale (RATE_UNAVAILABLE). */
  halted: z.boolean().optional(),
}).strict();

/** A feed never quotes an ask below its bid; checked once both parse. */
export function askNotBelowBid(body: Record<string, unknown>): string[] {
  const bid = parseDecimal(body.bid, RATE_SCALE);
  const ask = parseDecimal(body.ask, RATE_SCALE);
  return bid && ask && ask.lt(bid) ? ['ask'] : [];
}

export const kesCreditSchema = z.object({
  amount: positiveAmount('KES'),
  reference: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/).optional(),
}).strict();

/** POST /v1/sandbox/rates → 200 `{bid, ask, halted, observedAt}`. */
export function setSandboxRateHandler(deps: { trading: Pick<TradingApi, 'setSandboxRate'> }): RequestHandler {
  return async (req, res) => {
    const body = validateBody(sandboxRateSchema, parseJsonObject(rawBodyOf(res), req.headers['content-type']), askNotBelowBid);
    const rate = await deps.trading.setSandboxRate({
      partnerId: partnerAuthOf(res).partnerId,
      bid: body.bid,
      ask: body.ask,
      halted: body.halted ?? false,
    });
    res.status(200).json(presentSandboxRate(rate));
  };
}

/** POST /v1/sandbox/kes-credits → 201 the credit as `credit.received` will describe it. */
export function simulateKesCreditHandler(deps: { ledger: Pick<LedgerApi, 'simulateKesCredit'> }): RequestHandler {
  return async (req, res) => {
    const body = validateBody(kesCreditSchema, parseJsonObject(rawBodyOf(res), req.headers['content-type']));
    const credit = await deps.ledger.simulateKesCredit({
      partnerId: partnerAuthOf(res).partnerId,
      amountKes: body.amount,
      railReference: body.reference,
    });
    res.status(201).json(presentKesCredit(credit));
  };
}
