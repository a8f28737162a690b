/**
 * A partner's own deliveries, newest first, optionally one status
 * (`delivered`, `failing`, `dead`), in keyset pages of 1..100 (default 50).
 * The gateway validates the query's shape; this checks it again, naming each
 * bad parameter.
 */
import { validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import { pageOf, readPageBounds } from '@platform/persistence';
import { isPartnerDeliveryFilter } from '../../domain/partner-delivery-status';
import type { PartnerDeliveriesRepository, PartnerDeliveryRow } from '../../persistence/partner-deliveries.repository';

export interface ListPartnerDeliveriesQuery {
  partnerId: string;
  /** "": every status. */
  status: string;
  limit: number;
  cursor: string;
}

export class ListPartnerDeliveriesUseCase {
  constructor(private readonly deliveries: Pick<PartnerDeliveriesRepository, 'list'>) {}

  async execute(query: ListPartnerDeliveriesQuery): Promise<{ deliveries: PartnerDeliveryRow[]; nextCursor: string }> {
    const bad: string[] = [];
    if (!isUuid(query.partnerId)) bad.push('partnerId');
    if (query.status !== '' && !isPartnerDeliveryFilter(query.status)) bad.push('status');
    const bounds = readPageBounds({ limit: query.limit, cursor: query.cursor }, bad);
    if (bad.length > 0) throw validationFailed(bad);
    const filter = query.status !== '' && isPartnerDeliveryFilter(query.status) ? query.status : null;
    const rows = await this.deliveries.list(query.partnerId, filter, bounds);
    const { page, nextCursor } = pageOf(rows, bounds, (row) => row.position);
    return { deliveries: page, nextCursor };
  }
}
