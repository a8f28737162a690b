/**
 * What every order use case shares: the ledger calls trading makes, the
 * service accounts it posts to, and recording a transition with its event and
 * its cap release in one transaction.
 */
import { randomUUID } from 'node:crypto';
import { isAppError } from '@platform/errors';
import type { BusEvent } from '@platform/events';
import type { DataSource, EntityManager } from '@platform/persistence';
import { currentTraceparent } from '@platform/tracing';
import type { LedgerApi } from '../adapters/peers/peers';
import { OrderRecord, OrderStatus, orderEventData } from '../domain/order';
import type { OrderChanges, OrderOutboxRow, OrdersRepository } from '../persistence/orders.repository';

export type OrderEventType = 'order.funds_confirmed' | 'order.settled' | 'order.rejected' | 'order.expired';

/** The ledger's service accounts, each looked up once per process. */
export { ServiceAccounts } from '../adapters/peers/peers';

/** Partners whose account ids are remembered at most (a bound on the map, not a cache policy). */
const PARTNER_ACCOUNTS_REMEMBERED_MAX = 10_000;

/**
 * A partner's KES and USDT account ids never change once opened, so a step
 * that only needs the ids (settlement, a returned deposit) asks the ledger once
 * per partner and process. Readiness is never taken from here: a create asks
 * the ledger every time and refreshes the ids as it goes.
 */
export class PartnerAccountIds {
  private readonly ids = new Map<string, { kesAccountId: string; usdtAccountId: string }>();

  constructor(private readonly ledgerApi: Pick<LedgerApi, 'getPartnerAccounts'>) {}

  async of(partnerId: string): Promise<{ kesAccountId: string; usdtAccountId: string }> {
    const known = this.ids.get(partnerId);
    if (known) return known;
    return this.remember(partnerId, await this.ledgerApi.getPartnerAccounts({ partnerId }));
  }

  remember(
    partnerId: string,
    accounts: { kesAccountId: string; usdtAccountId: string },
  ): { kesAccountId: string; usdtAccountId: string } {
    const ids = { kesAccountId: accounts.kesAccountId, usdtAccountId: accounts.usdtAccountId };
    // Both ids exist once the partner's accounts are opened; an empty one is never remembered.
    if (!ids.kesAccountId || !ids.usdtAccountId) return ids;
    if (this.ids.size >= PARTNER_ACCOUNTS_REMEMBERED_MAX) this.ids.delete(this.ids.keys().next().value!);
    this.ids.set(partnerId, ids);
    return ids;
  }
}

export interface Transition {
  from: OrderStatus;
  /** Also compare-and-set on the debit (or collection) outcome, so a create and the scheduler never both confirm. */
  fromDebitOutcome?: OrderRecord['debitOutcome'];
  changes: OrderChanges;
  event?: OrderEventType;
  /** The cap usage (the order id) is given back: the value never moved. */
  releaseCap?: boolean;
}

export interface OrderTransitionsDependencies {
  dataSource: DataSource;
  orders: Pick<OrdersRepository, 'update' | 'updateMany'>;
  /** Kicks the outbox relay after a transaction that enqueued an event. */
  onEvents: () => void;
}

/** Every move of an order's status goes through here: compare-and-set, its event and its cap release together. */
export class OrderTransitions {
  constructor(private readonly deps: OrderTransitionsDependencies) {}

  /** One statement, its own transaction; null when another step moved the order first. */
  async record(order: OrderRecord, transition: Transition): Promise<OrderRecord | null> {
    const updated = await this.within(this.deps.dataSource.manager, order, transition);
    if (updated && transition.event) this.deps.onEvents();
    return updated;
  }

  /**
   * The same move for many orders, each with its own event, in ONE statement
   * (one commit however many orders): answers the orders that moved. The
   * transition's changes are the same for every order; releaseCap is not offered.
   */
  async recordMany(
    orders: readonly OrderRecord[],
    transition: Omit<Transition, 'releaseCap' | 'event'> & { event: OrderEventType },
  ): Promise<OrderRecord[]> {
    if (orders.length === 0) return [];
    const moved = await this.deps.orders.updateMany(
      this.deps.dataSource.manager,
      {
        orderIds: orders.map((order) => order.orderId),
        events: orders.map((order) => orderOutboxRow(order, transition, transition.event)),
      },
      transition.from,
      transition.changes,
      transition.fromDebitOutcome,
    );
    if (moved.length > 0) this.deps.onEvents();
    return moved;
  }

  /** The same inside the caller's transaction (the caller kicks the relay after its commit). */
  async within(manager: EntityManager, order: OrderRecord, transition: Transition): Promise<OrderRecord | null> {
    return this.deps.orders.update(
      manager,
      order.orderId,
      transition.from,
      transition.changes,
      transition.fromDebitOutcome,
      {
        event: transition.event ? orderOutboxRow(order, transition, transition.event) : undefined,
        releaseCap: transition.releaseCap,
      },
    );
  }
}

/**
 * The event's outbox row, written by the same statement as the move (the bus
 * envelope enqueueEvent writes, with the active trace context). Its data is
 * known before the statement: the status the move sets, and fields fixed when
 * the order was created.
 */
function orderOutboxRow(order: OrderRecord, transition: Transition, type: OrderEventType): OrderOutboxRow {
  const envelope: BusEvent = {
    id: randomUUID(),
    type,
    createdAt: new Date().toISOString(),
    partnerId: order.partnerId,
    data: orderEventData(order, transition.changes.status ?? transition.from),
  };
  return {
    id: envelope.id,
    partnerId: envelope.partnerId,
    type,
    payload: JSON.stringify(envelope),
    createdAt: envelope.createdAt,
    traceparent: currentTraceparent(),
  };
}

/** True for a ledger refusal with this code (the gRPC client turns every error into an AppError). */
export function isRefusal(error: unknown, code: string): boolean {
  return isAppError(error) && error.code === code;
}
