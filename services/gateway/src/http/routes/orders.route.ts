/** Orders (scope trade; read for GET). */
import type { Response } from 'express';
import { AppError, isErrorCode } from '@platform/errors';
import type { trading } from '@platform/proto';
import type { TradingApi } from '../dependencies';
import { presentOrder } from '../order-presenters';
import { answerPage, listWindow } from '../paging';
import type { OperationHandler } from './operation';

/** A create answers 202 with the order, or, when it was refused after the order came to exist, that refusal (also on replay). */
function answerCreate(res: Response, result: trading.OrderResult): void {
  if (result.refusalCode) {
    if (!isErrorCode(result.refusalCode)) throw new Error(`unknown refusal code from trading: ${result.refusalCode}`);
    throw new AppError(result.refusalCode);
  }
  if (!result.order) throw new Error('trading answered an order result without its order');
  res.status(202).json(presentOrder(result.order));
}

/** POST /v1/orders/buy → 202 buy order. */
export function createBuyOrderHandler(deps: {
  trading: Pick<TradingApi, 'createBuyOrder'>;
}): OperationHandler<'createBuyOrder'> {
  return async ({ partnerId, body }, res) => {
    const result = await deps.trading.createBuyOrder({
      partnerId,
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
export function createSellOrderHandler(deps: {
  trading: Pick<TradingApi, 'createSellOrder'>;
}): OperationHandler<'createSellOrder'> {
  return async ({ partnerId, body }, res) => {
    const result = await deps.trading.createSellOrder({
      partnerId,
      quoteId: body.quoteId,
      partnerReference: body.partnerReference,
      payoutAccountId: body.payoutAccountId,
    });
    answerCreate(res, result);
  };
}

/** GET /v1/orders/{id} → 200 the order; unknown or another partner's is 404. */
export function getOrderHandler(deps: { trading: Pick<TradingApi, 'getOrder'> }): OperationHandler<'getOrder'> {
  return async ({ partnerId, params }, res) => {
    res.status(200).json(presentOrder(await deps.trading.getOrder({ partnerId, orderId: params.id })));
  };
}

/** GET /v1/orders → 200 a page of the partner's orders, newest first. */
export function listOrdersHandler(deps: { trading: Pick<TradingApi, 'listOrders'> }): OperationHandler<'listOrders'> {
  return async ({ partnerId, query }, res) => {
    const result = await deps.trading.listOrders({
      partnerId,
      status: query.status,
      partnerReference: query.partnerReference,
      ...listWindow(query),
    });
    answerPage(res, result.orders.map(presentOrder), result.nextCursor);
  };
}

/** PATCH /v1/orders/{id} {txHash} → 200 {orderId, status, txHash}. */
export function attachTxHashHandler(deps: {
  trading: Pick<TradingApi, 'attachTxHash'>;
}): OperationHandler<'attachTxHash'> {
  return async ({ partnerId, params, body }, res) => {
    const order = await deps.trading.attachTxHash({ partnerId, orderId: params.id, txHash: body.txHash });
    res.status(200).json({ orderId: order.orderId, status: order.status, txHash: order.txHash });
  };
}
