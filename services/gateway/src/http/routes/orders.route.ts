/** Orders (spec section 4; scope trade). */
import type { RequestHandler } from 'express';
import { AppError, isErrorCode } from '@platform/errors';
import type { trading } from '@platform/proto';
import { z } from 'zod';
import type { TradingApi } from '../dependencies';
import { partnerAuthOf, rawBodyOf } from '../locals';
import { presentOrder } from '../order-presenters';
import { parseJsonObject, validateBody } from '../validation';
import { isUuidParam } from './path-params';
import { positiveAmount } from './amount-schemas';

const PARTNER_REFERENCE_LENGTH_MAX = 200;
const TX_HASH = /^(0x)?[0-9a-f]{64}$/;

const partnerReference = z.string().min(1).max(PARTNER_REFERENCE_LENGTH_MAX);

export const buyOrderSchema = z.object({
  quoteId: z.string(),
  partnerReference,
  expectedUsdtAmount: positiveAmount('USDT').optional(),
  // The pay-in shape (contract decisions section 4); trading decides by the partner's buy mode.
  walletId: z.string().optional(),
  paymentRail: z.string().optional(),
}).strict();

export const sellOrderSchema = z.object({
  quoteId: z.string(),
  partnerReference,
  payoutAccountId: z.string(),
}).strict();

// Contract decisions section 4: 64 lowercase hex characters, an optional 0x prefix stripped.
export const attachHashSchema = z.object({
  txHash: z.string().regex(TX_HASH).transform((value) => value.replace(/^0x/, '')),
}).strict();

/** A create answers 202 with the order, or, when it was refused after the order came to exist, that refusal (also on replay). */
function answerCreate(res: Parameters<RequestHandler>[1], result: trading.OrderResult): void {
  if (result.refusalCode) {
    if (!isErrorCode(result.refusalCode)) throw new Error(`unknown refusal code from trading: ${result.refusalCode}`);
    throw new AppError(result.refusalCode);
  }
  if (!result.order) throw new Error('trading answered an order result without its order');
  res.status(202).json(presentOrder(result.order));
}

/** POST /v1/orders/buy → 202 buy order. */
export function createBuyOrderHandler(deps: { trading: Pick<TradingApi, 'createBuyOrder'> }): RequestHandler {
  return async (req, res) => {
    const body = validateBody(buyOrderSchema, parseJsonObject(rawBodyOf(res), req.headers['content-type']));
    const result = await deps.trading.createBuyOrder({
      partnerId: partnerAuthOf(res).partnerId,
      quoteId: body.quoteId,
      partnerReference: body.partnerReference,
      expectedUsdtAmount: body.expectedUsdtAmount,
      walletId: body.walletId,
      paymentRail: body.paymentRail,
    });
    answerCreate(res, result);
  };
}

/** POST /v1/orders/sell → 202 sell order awaiting USDT. */
export function createSellOrderHandler(deps: { trading: Pick<TradingApi, 'createSellOrder'> }): RequestHandler {
  return async (req, res) => {
    const body = validateBody(sellOrderSchema, parseJsonObject(rawBodyOf(res), req.headers['content-type']));
    const result = await deps.trading.createSellOrder({
      partnerId: partnerAuthOf(res).partnerId,
      quoteId: body.quoteId,
      partnerReference: body.partnerReference,
      payoutAccountId: body.payoutAccountId,
    });
    answerCreate(res, result);
  };
}

/** GET /v1/orders/{id} → 200 the order; unknown or another partner's is 404. */
export function getOrderHandler(deps: { trading: Pick<TradingApi, 'getOrder'> }): RequestHandler {
  return async (req, res) => {
    const orderId = req.params.id;
    if (!isUuidParam(orderId)) throw new AppError('ORDER_NOT_FOUND');
    res.status(200).json(presentOrder(await deps.trading.getOrder({ partnerId: partnerAuthOf(res).partnerId, orderId })));
  };
}

/** PATCH /v1/orders/{id} {txHash} → 200 {orderId, status, txHash}. */
export function attachTxHashHandler(deps: { trading: Pick<TradingApi, 'attachTxHash'> }): RequestHandler {
  return async (req, res) => {
    const body = validateBody(attachHashSchema, parseJsonObject(rawBodyOf(res), req.headers['content-type']));
    const orderId = req.params.id;
    if (!isUuidParam(orderId)) throw new AppError('ORDER_NOT_FOUND');
    const order = await deps.trading.attachTxHash({ partnerId: partnerAuthOf(res).partnerId, orderId, txHash: body.txHash });
    res.status(200).json({ orderId: order.orderId, status: order.status, txHash: order.txHash });
  };
}
