import { AppError, validationFailed } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { DataSource, recordAudit, withTransaction } from '@platform/persistence';
import { isUuid } from '../../domain/ids';
import type { DeliveryMetrics } from '../../metrics/delivery-metrics';
import type { DeliveriesRepository, DeliveryStatus } from '../../persistence/deliveries.repository';

export interface ReplayDeliveryResult {
  deliveryId: string;
  /** `pending` once re-opened; otherwise the status it keeps (already open, or held without an endpoint). */
  status: DeliveryStatus;
}

/**
 * Operator action: sends one delivery again, keeping its delivery id (the
 * partner dedupes on it). A dead, delivered or held delivery becomes pending,
 * due now, with a fresh round of 7 attempts; one already pending or in flight
 * is left as it is, so replaying twice never doubles anything. A re-opening
 * is audited with it.
 */
export class ReplayDeliveryUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly deliveries: DeliveriesRepository,
    private readonly metrics: DeliveryMetrics,
    private readonly logger: Logger,
  ) {}

  async execute(deliveryId: string): Promise<ReplayDeliveryResult> {
    if (!isUuid(deliveryId)) throw validationFailed(['deliveryId']);
    const replay = await withTransaction(this.dataSource, async (manager) => {
      const replayed = await this.deliveries.replayOne(deliveryId, manager);
      if (replayed?.reopened) await recordAudit(manager, { action: 'webhook_delivery.replayed', partnerId: replayed.partnerId, details: { deliveryId } });
      return replayed;
    });
    if (replay === null) throw new AppError('DELIVERY_NOT_FOUND');
    if (replay.reopened) this.metrics.deliveriesReplayed(1);
    this.logger.info('webhook delivery replay requested', { deliveryId, status: replay.status, reopened: replay.reopened });
    return { deliveryId, status: replay.status };
  }
}
