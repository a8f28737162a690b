/**
 * Hands payouts a bounded batch of funded sell orders whose KES proceeds are
 * due, each leased to the caller for leaseMs (trading's ORDER_STEP_LEASE_MS):
 * payouts makes (or reads) the instruction and reports the outcome
 * (usecases/record-sell-proceeds-outcome), which moves the timer on or ends
 * it; a caller that dies mid-batch leaves its orders to be claimed again once
 * the lease passes. Every claim of an order answers the same payout (the
 * instruction id is the order id), so a repeat never pays twice.
 */
import { validationFailed } from '@platform/errors';
import { Big, formatAmount } from '@platform/money';
import type { DataSource } from '@platform/persistence';
import type { OrderRecord } from '../../domain/order';
import type { OrdersRepository } from '../../persistence/orders.repository';

/** Orders one claim answers at most, and when the caller asks for 0. */
export const SELL_PROCEEDS_CLAIM_LIMIT_MAX = 100;
export const SELL_PROCEEDS_CLAIM_LIMIT_DEFAULT = 50;

export interface DueSellProceeds {
  orderId: string;
  partnerId: string;
  payoutDestinationId: string;
  amountKes: string;
  instructionId: string;
}

export interface ClaimDueSellProceedsDependencies {
  dataSource: DataSource;
  orders: Pick<OrdersRepository, 'claimDueSellProceeds'>;
  /** How long a claimed order is the caller's before it can be claimed again. */
  leaseMs: number;
}

export class ClaimDueSellProceedsUseCase {
  constructor(private readonly deps: ClaimDueSellProceedsDependencies) {}

  async execute(command: { limit: number }): Promise<DueSellProceeds[]> {
    const limit = command.limit === 0 ? SELL_PROCEEDS_CLAIM_LIMIT_DEFAULT : command.limit;
    if (!Number.isInteger(limit) || limit < 1 || limit > SELL_PROCEEDS_CLAIM_LIMIT_MAX)
      throw validationFailed(['limit']);
    const orders = await this.deps.orders.claimDueSellProceeds(this.deps.dataSource.manager, limit, this.deps.leaseMs);
    return orders.map(dueProceeds);
  }
}

/** The payout an order asks for: the same on every claim (instruction id = order id). */
export function dueProceeds(order: OrderRecord): DueSellProceeds {
  return {
    orderId: order.orderId,
    partnerId: order.partnerId,
    // Every sell order names its payout account at create (sell funding refuses one without it).
    payoutDestinationId: order.payoutAccountId!,
    amountKes: formatAmount(new Big(order.kesTotalAmount), 'KES'),
    instructionId: order.orderId,
  };
}
