/**
 * A page of the partner's own orders, newest first, filtered by status,
 * partnerReference and a creation-time window [from, to). The gateway checks
 * the query's shape; this checks it again, naming every bad parameter.
 */
import { validationFailed } from '@platform/errors';
import { pageOf, readPageBounds } from '@platform/persistence';
import { ORDER_STATUSES, OrderRecord, OrderStatus, PARTNER_REFERENCE_LENGTH_MAX } from '../../domain/order';
import type { OrdersRepository } from '../../persistence/orders.repository';

export interface ListOrdersQuery {
  partnerId: string;
  status?: string;
  from?: string;
  to?: string;
  partnerReference?: string;
  limit: number;
  cursor: string;
}

function isOrderStatus(value: string): value is OrderStatus {
  return (ORDER_STATUSES as readonly string[]).includes(value);
}

export class ListOrdersUseCase {
  constructor(private readonly orders: Pick<OrdersRepository, 'list'>) {}

  async execute(query: ListOrdersQuery): Promise<{ orders: OrderRecord[]; nextCursor: string }> {
    const bad: string[] = [];
    if (query.status !== undefined && !isOrderStatus(query.status)) bad.push('status');
    const reference = query.partnerReference;
    if (reference !== undefined && (reference.length === 0 || reference.length > PARTNER_REFERENCE_LENGTH_MAX))
      bad.push('partnerReference');
    const page = readPageBounds(query, bad);
    if (bad.length > 0) throw validationFailed(bad);
    const rows = await this.orders.list({
      partnerId: query.partnerId,
      status: (query.status as OrderStatus | undefined) ?? null,
      partnerReference: reference ?? null,
      page,
    });
    const { page: listed, nextCursor } = pageOf(rows, page, (row) => ({
      createdAt: row.createdAtExact,
      id: row.orderId,
    }));
    return { orders: listed.map(({ createdAtExact: _position, ...order }) => order), nextCursor };
  }
}
