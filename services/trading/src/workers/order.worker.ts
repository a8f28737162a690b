/**
 * The `order` worker, trading's durable order timer: the shared
 * DurableScheduler (@platform/persistence) over orders whose next_action_at has
 * passed. Every step is safe to run again (ledger ids are the order id,
 * transitions compare-and-set on the status), so a replica that dies mid-step
 * leaves the order to be retaken when its lease passes. It claims only while
 * the ledger, which every order's steps call, looks reachable: a step that
 * meets a peer unavailable gives its order back at once for a replica with a
 * healthy path. The step hears of each claim before its orders run, so the
 * debit-first buys due to settle are settled in one round (their transitions
 * in one statement). A funded sell order's proceeds are not its work: payouts claims
 * them (ClaimDueSellProceeds), so trading never calls payouts.
 */
import type { Logger } from '@platform/logger';
import { DataSource, DurableScheduler, ReadinessGate, SchedulerOptions } from '@platform/persistence';
import type { OrderRecord } from '../domain/order';
import { DUE_ORDERS, OrdersRepository } from '../persistence/orders.repository';
import type { OrderStep } from '../usecases/run-order-steps/advance-order';

export type OrderScheduler = DurableScheduler<OrderRecord>;

export function orderScheduler(
  dataSource: DataSource,
  orders: OrdersRepository,
  step: OrderStep,
  logger: Logger,
  options: SchedulerOptions,
  ready: ReadinessGate,
): OrderScheduler {
  return new DurableScheduler(
    dataSource,
    {
      name: 'order',
      dueRows: DUE_ORDERS,
      claimDue: async (manager, limit, leaseMs) => {
        const claimed = await orders.claimDue(manager, limit, leaseMs);
        step.claimed(claimed);
        return claimed;
      },
      idOf: (order) => order.orderId,
      run: (order) => step.run(order),
      ready,
    },
    logger,
    options,
  );
}
