/**
 * A partner's own deliveries, newest first, by keyset on (created_at,
 * delivery_id) like every partner list (@platform/persistence keyset-page):
 * deliveries created while a partner pages sort before its first page.
 */
import { keysetConditions, keysetTimeSql, queryRows } from '@platform/persistence';
import type { DataSource, KeysetPosition, PageBounds } from '@platform/persistence';
import { filterCondition, PartnerDeliveryFilter } from '../domain/partner-delivery-status';
import { DeliverySummary, SummaryRow, toSummary } from './deliveries.repository';

export interface PartnerDeliveryRow extends DeliverySummary {
  /** The keyset position of the row (created_at at full precision). */
  position: KeysetPosition;
}

interface Row extends SummaryRow {
  created_at_position: string;
}

export class PartnerDeliveriesRepository {
  constructor(private readonly dataSource: DataSource) {}

  async list(partnerId: string, filter: PartnerDeliveryFilter | null, page: PageBounds): Promise<PartnerDeliveryRow[]> {
    const parameters: unknown[] = [partnerId];
    const conditions = ['partner_id = $1'];
    if (filter !== null) conditions.push(`(${filterCondition(filter)})`);
    conditions.push(...keysetConditions(page, parameters, { createdAt: 'created_at', id: 'delivery_id' }));
    parameters.push(page.fetchLimit);
    const rows = await queryRows<Row>(
      this.dataSource,
      `SELECT ${COLUMNS} FROM webhook_deliveries WHERE ${conditions.join(' AND ')}
       ORDER BY created_at DESC, delivery_id DESC LIMIT $${parameters.length}`,
      parameters,
    );
    return rows.map(toRow);
  }

  /** One of the partner's deliveries; null when unknown or another partner's. */
  async get(partnerId: string, deliveryId: string): Promise<PartnerDeliveryRow | null> {
    const [row] = await queryRows<Row>(
      this.dataSource,
      `SELECT ${COLUMNS} FROM webhook_deliveries WHERE partner_id = $1 AND delivery_id = $2`,
      [partnerId, deliveryId],
    );
    return row ? toRow(row) : null;
  }
}

const COLUMNS = `delivery_id, event_id, event_type, partner_id, status, attempt_count, replay_count, last_status_code, last_error_class,
  next_attempt_at, created_at, ${keysetTimeSql('created_at')} AS created_at_position, delivered_at`;

const toRow = (row: Row): PartnerDeliveryRow => ({
  ...toSummary(row),
  position: { createdAt: row.created_at_position, id: row.delivery_id },
});
