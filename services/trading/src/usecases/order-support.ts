/**
 * What every order use case shares: the ledger calls trading makes, the
 * service accounts it posts to, recording a transition with its event in one
 * transaction, and releasing the cap of value that never moved.
 */
import { isAppError } from '@platform/errors';
import { enqueueEvent } from '@platform/events';
import type { PromiseClient } from '@platform/grpc';
import type { DataSource, EntityManager } from '@platform/persistence';
import { withTransaction } from '@platform/persistence';
import type { ledger } from '@platform/proto';
import { OrderRecord, OrderStatus, orderEventData } from '../domain/order';
import { releaseCapUsage } from '../persistence/cap-usages.repository';
import { OrderChanges, updateOrder } from '../persistence/orders.repository';

export type LedgerApi = Pick<
  PromiseClient<typeof ledger.LedgerService>,
  'getPartnerAccounts' | 'getBalances' | 'placeHold' | 'postHold' | 'voidHold' | 'getServiceAccount' | 'getPayoutDestination' | 'claimUsdtDeposit' | 'postEntry'
  | 'getFundingInstructions' | 'registerPaymentReference' | 'listCreditsByReference' | 'getHold' | 'listOwnedHolds'
>;

export type OrderEventType = 'order.funds_confirmed' | 'order.settled' | 'order.rejected' | 'order.expired';

/** Service account ids never change once opened: read once per process. */
export class ServiceAccounts {
  private readonly ids = new Map<string, string>();

  constructor(private readonly ledgerApi: LedgerApi) {}

  async id(code: 'treasury' | 'fee_revenue' | 'suspense' | 'bank_clearing' | 'chain_clearing', currency: 'KES' | 'USDT'): Promise<string> {
    const key = `${code}:${currency}`;
    const known = this.ids.get(key);
    if (known) return known;
    const account = await this.ledgerApi.getServiceAccount({ code, currency });
    this.ids.set(key, account.accountId);
    return account.accountId;
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

/**
 * Applies one transition (compare-and-set on the status) with its event and
 * cap release in one transaction; null when another step moved the order first.
 */
export async function recordTransition(dataSource: DataSource, order: OrderRecord, transition: Transition, onEvents?: () => void): Promise<OrderRecord | null> {
  const updated = await withTransaction(dataSource, (manager) => transitionIn(manager, order, transition));
  if (updated && transition.event) onEvents?.();
  return updated;
}

export async function transitionIn(manager: EntityManager, order: OrderRecord, transition: Transition): Promise<OrderRecord | null> {
  const updated = await updateOrder(manager, order.orderId, transition.from, transition.changes, transition.fromDebitOutcome);
  if (!updated) return null;
  if (transition.event) {
    await enqueueEvent(manager, { partnerId: order.partnerId, type: transition.event, data: orderEventData(updated, updated.status) });
  }
  if (transition.releaseCap) await releaseCapUsage(manager, order.orderId);
  return updated;
}

/** True for a ledger refusal with this code (the gRPC client turns every error into an AppError). */
export function isRefusal(error: unknown, code: string): boolean {
  return isAppError(error) && error.code === code;
}
