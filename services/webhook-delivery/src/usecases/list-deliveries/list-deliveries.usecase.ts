import { validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import type { DeliveriesRepository, DeliverySummary } from '../../persistence/deliveries.repository';

export const LIST_LIMIT_DEFAULT = 100;
export const LIST_LIMIT_MAX = 500;

export interface ListDeliveriesQuery {
  partnerId: string;
  deadOnly: boolean;
  /** 0 means LIST_LIMIT_DEFAULT. */
  limit: number;
}

/** Operator query: a partner's deliveries, newest first, optionally only the dead ones. */
export class ListDeliveriesUseCase {
  constructor(private readonly deliveries: DeliveriesRepository) {}

  async execute(query: ListDeliveriesQuery): Promise<DeliverySummary[]> {
    const limit = query.limit === 0 ? LIST_LIMIT_DEFAULT : query.limit;
    const bad: string[] = [];
    if (!isUuid(query.partnerId)) bad.push('partnerId');
    if (!Number.isInteger(limit) || limit < 1 || limit > LIST_LIMIT_MAX) bad.push('limit');
    if (bad.length > 0) throw validationFailed(bad);
    return this.deliveries.listForPartner(query.partnerId, query.deadOnly, limit);
  }
}
