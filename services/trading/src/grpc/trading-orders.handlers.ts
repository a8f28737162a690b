import type { AsyncImplementation } from '@platform/grpc';
import type { ListAuditRecordsUseCase } from '@platform/persistence';
import type { trading } from '@platform/proto';
import { OrderRecord, orderView } from '../domain/order';
import type { CreateBuyOrderUseCase, OrderResult } from '../usecases/create-buy-order/create-buy-order.usecase';
import type { GetOrderUseCase } from '../usecases/get-order/get-order.usecase';
import type { ListOrdersUseCase } from '../usecases/list-orders/list-orders.usecase';
import type { SetPartnerStatusUseCase, SetPlatformSwitchUseCase } from '../usecases/set-switches/set-switches.usecase';

export function toOrderMessage(order: OrderRecord): trading.Order {
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

/** Sell-side use cases arrive with their issue step; until then the RPC does not exist. */
export interface SellOrderUseCases {
  createSellOrder(command: trading.CreateSellOrderRequest): Promise<OrderResult>;
  attachTxHash(command: trading.AttachTxHashRequest): Promise<OrderRecord>;
}

/** TradingOrders: translation only. */
export function tradingOrdersHandlers(deps: {
  createBuyOrder: CreateBuyOrderUseCase;
  getOrder: GetOrderUseCase;
  listOrders: ListOrdersUseCase;
  sell: SellOrderUseCases;
}): AsyncImplementation<typeof trading.TradingOrdersService> {
  return {
    async createBuyOrder(request) {
      return toResult(await deps.createBuyOrder.execute(request));
    },
    async createSellOrder(request) {
      return toResult(await deps.sell.createSellOrder(request));
    },
    async getOrder(request) {
      return toOrderMessage(await deps.getOrder.execute(request));
    },
    async attachTxHash(request) {
      return toOrderMessage(await deps.sell.attachTxHash(request));
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
