/**
 * The durable order timer: the shared DurableScheduler (@platform/persistence)
 * over orders whose next_action_at has passed. Every step is safe to run again
 * (ledger ids are the order id, transitions compare-and-set on the status), so
 * a replica that dies mid-step leaves the order to be retaken when its lease passes.
 */
import type { Logger } from '@platform/logger';
import { DataSource, DurableScheduler, SchedulerOptions } from '@platform/persistence';
import type { OrderRecord } from '../../domain/order';
import { DUE_ORDERS, OrdersRepository } from '../../persistence/orders.repository';

export interface OrderStep {
  run(order: OrderRecord): Promise<void>;
}

export type OrderScheduler = DurableScheduler<OrderRecord>;

export function orderScheduler(
  dataSource: DataSource,
  orders: OrdersRepository,
  step: OrderStep,
  logger: Logger,
  options: SchedulerOptions,
): OrderScheduler {
  return new DurableScheduler(
    dataSource,
    {
      name: 'order',
      dueRows: DUE_ORDERS,
      claimDue: (manager, limit, leaseMs) => orders.claimDue(manager, limit, leaseMs),
      idOf: (order) => order.orderId,
      run: (order) => step.run(order),
    },
    logger,
    options,
  );
}
