/** Partner read of one order; another partner's order is as unknown as a missing one. */
import { AppError } from '@platform/errors';
import { isUuid } from '@platform/ids';
import type { OrderViewRecord } from '../../domain/order';
import type { OrdersRepository } from '../../persistence/orders.repository';

/** True when the order exists and `partnerId` owns it; a missing or a foreign one is ORDER_NOT_FOUND alike. */
export function isOwnOrder<T extends Pick<OrderViewRecord, 'partnerId'>>(
  order: T | null | undefined,
  partnerId: string,
): order is T {
  return !!order && order.partnerId === partnerId;
}

export class GetOrderUseCase {
  constructor(private readonly orders: Pick<OrdersRepository, 'read'>) {}

  async execute(command: { partnerId: string; orderId: string }): Promise<OrderViewRecord> {
    if (!isUuid(command.orderId)) throw new AppError('ORDER_NOT_FOUND');
    const order = await this.orders.read(command.orderId);
    if (!isOwnOrder(order, command.partnerId)) throw new AppError('ORDER_NOT_FOUND');
    return order;
  }
}
