import { AppError, validationFailed } from '@platform/errors';
import type { Logger } from '@platform/logger';
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
 * is left as it is, so replaying twice never doubles anything.
 */
export class ReplayDeliveryUseCase {
  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly metrics: DeliveryMetrics,
    private readonly logger: Logger,
  ) {}

  async execute(deliveryId: string): Promise<ReplayDeliveryResult> {
    if (!isUuid(deliveryId)) throw validationFailed(['deliveryId']);
    const replay = await this.deliveries.replayOne(deliveryId);
    if (replay === null) throw new AppError('DELIVERY_NOT_FOUND');
    if (replay.reopened) this.metrics.deliveriesReplayed(1);
    this.logger.info('webhook delivery replay requested', { deliveryId, ...replay });
    return { deliveryId, status: replay.status };
  }
}
