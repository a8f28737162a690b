/**
 * Partners' reads of one order each, answered together from one statement (the
 * gateway's coalesced GetOrder reads): each item is answered exactly as
 * GetOrderUseCase answers it alone, its own order or its own ORDER_NOT_FOUND.
 */
import { AppError, validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import type { OrderViewRecord } from '../../domain/order';
import type { OrdersRepository } from '../../persistence/orders.repository';
import { isOwnOrder } from '../get-order/get-order.usecase';

export interface OrderReadItem {
  partnerId: string;
  orderId: string;
}

export type OrderReadOutcome = { order: OrderViewRecord } | { refusal: AppError };

export class GetOrdersUseCase {
  /** `itemsMax`: the most items one call may carry (the batch RPC's bound). */
  constructor(
    private readonly orders: Pick<OrdersRepository, 'readMany'>,
    private readonly itemsMax: number,
  ) {}

  /** One outcome per item, in the items' order; more than `itemsMax` items are refused whole. */
  async execute(items: readonly OrderReadItem[]): Promise<OrderReadOutcome[]> {
    if (items.length > this.itemsMax) throw validationFailed(['items']);
    // Ids that are not UUIDs are answered without a read, as GetOrder answers them.
    const orderIds = [...new Set(items.map((item) => item.orderId).filter(isUuid))];
    const rows = orderIds.length > 0 ? await this.orders.readMany(orderIds) : [];
    const byId = new Map(rows.map((row) => [row.orderId, row]));
    return items.map((item) => {
      const order = byId.get(item.orderId);
      return isOwnOrder(order, item.partnerId) ? { order } : { refusal: new AppError('ORDER_NOT_FOUND') };
    });
  }
}
