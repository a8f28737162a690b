import { AsyncImplementation, itemRefusal } from '@platform/grpc';
import { enrichContext } from '@platform/logger';
import type { ListAuditRecordsUseCase } from '@platform/persistence';
import type { trading } from '@platform/proto';
import { OrderViewRecord, orderView } from '../domain/order';
import type { AttachTxHashUseCase } from '../usecases/attach-tx-hash/attach-tx-hash.usecase';
import type { CreateOrderUseCase } from '../usecases/create-order/create-order.usecase';
import type { OrderResult } from '../usecases/create-order/funding-strategy';
import type { GetOrderUseCase } from '../usecases/get-order/get-order.usecase';
import type { GetOrdersUseCase, OrderReadOutcome } from '../usecases/get-orders/get-orders.usecase';
import type { ListOrdersUseCase } from '../usecases/list-orders/list-orders.usecase';
import type { SetPartnerStatusUseCase, SetPlatformSwitchUseCase } from '../usecases/set-switches/set-switches.usecase';
import { BatchItemMetrics } from './batch-item-metrics';

export function toOrderMessage(order: OrderViewRecord): trading.Order {
  const view = orderView(order);
  return {
    ...view,
    fee: { ...view.fee, capKesAmount: view.fee.capKesAmount ?? undefined },
    kesDebit: view.kesDebit ?? undefined,
    depositAddress: view.depositAddress ?? undefined,
    chain: view.chain ?? undefined,
    sendBefore: view.sendBefore ?? undefined,
    txHash: view.txHash ?? undefined,
    paymentInstructions: view.paymentInstructions ?? undefined,
    paymentReference: view.paymentReference ?? undefined,
    walletId: view.walletId ?? undefined,
    payment: view.payment ?? undefined,
  };
}

function toResult(result: OrderResult): trading.OrderResult {
  return { order: toOrderMessage(result.order), refusalCode: result.refusalCode ?? undefined };
}

function toOrdersAnswer(outcome: OrderReadOutcome): trading.GetOrdersAnswer {
  if ('order' in outcome) return { outcome: { $case: 'order', order: toOrderMessage(outcome.order) } };
  return { outcome: { $case: 'refusal', refusal: itemRefusal(outcome.refusal) } };
}

/**
 * TradingOrders: translation only. A batch of reads names no one request in its
 * metadata: its log context takes its items' request ids, comma-separated, so a
 * line the batch logs (a failure) names every request it served (its items share
 * one statement: no item has work of its own to log). Each item's outcome is
 * counted (BatchItemMetrics).
 */
export function tradingOrdersHandlers(deps: {
  createOrder: CreateOrderUseCase;
  getOrder: GetOrderUseCase;
  getOrders: GetOrdersUseCase;
  listOrders: ListOrdersUseCase;
  attachTxHash: AttachTxHashUseCase;
  batchItems?: BatchItemMetrics;
}): AsyncImplementation<typeof trading.TradingOrdersService> {
  const batchItems = deps.batchItems ?? new BatchItemMetrics();
  return {
    async createBuyOrder(request) {
      return toResult(await deps.createOrder.execute({ side: 'buy', ...request }));
    },
    async createSellOrder(request) {
      return toResult(await deps.createOrder.execute({ side: 'sell', ...request }));
    },
    async getOrder(request) {
      return toOrderMessage(await deps.getOrder.execute(request));
    },
    async getOrders(request) {
      enrichContext({ requestId: request.items.map((item) => item.requestId).join(',') });
      const outcomes = await deps.getOrders.execute(request.items);
      batchItems.count('GetOrders', outcomes);
      return { answers: outcomes.map(toOrdersAnswer) };
    },
    async attachTxHash(request) {
      return toOrderMessage(await deps.attachTxHash.execute(request));
    },
    async listOrders(request) {
      const { orders, nextCursor } = await deps.listOrders.execute(request);
      return { orders: orders.map(toOrderMessage), nextCursor };
    },
  };
}

/** TradingOperator: translation only. */
export function tradingOperatorHandlers(deps: {
  setPartnerStatus: SetPartnerStatusUseCase;
  setPlatformSwitch: SetPlatformSwitchUseCase;
  listAuditRecords: ListAuditRecordsUseCase;
}): AsyncImplementation<typeof trading.TradingOperatorService> {
  return {
    async setPartnerStatus(request) {
      return deps.setPartnerStatus.execute(request);
    },
    async setPlatformSwitch(request) {
      return deps.setPlatformSwitch.execute(request);
    },
    listAuditRecords: (request) => deps.listAuditRecords.execute(request),
  };
}
