import { AppError, validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import type { Logger } from '@platform/logger';
import { DataSource, EntityManager, recordAudit, withTransaction } from '@platform/persistence';
import type { DeliveryMetrics } from '../../metrics/delivery-metrics';
import { OPERATOR_REPLAY } from '../../persistence/deliveries.repository';
import type { DeliveriesRepository, DeliveryStatus, ReplayScope } from '../../persistence/deliveries.repository';

export interface ReplayDeliveryResult {
  deliveryId: string;
  /** `pending` once re-opened; otherwise the status it keeps (already open, or held without an endpoint). */
  status: DeliveryStatus;
}

/**
 * A partner asking for its own delivery again (through the gateway): only its
 * own deliveries are seen (another partner's id is unknown), a failing one is
 * re-opened too, a delivered one is left as it is, and re-openings are limited
 * to `retriesPerMinute` per partner.
 */
export interface PartnerRetry {
  partnerId: string;
  retriesPerMinute: number;
}

const RETRY_WINDOW_SECONDS = 60;

/**
 * Sends one delivery again, keeping its delivery id (the partner dedupes on
 * it), with a fresh round of 7 attempts due now. The operator re-opens a dead,
 * delivered or held delivery; a partner (PartnerRetry) a dead, failing or held
 * one of its own. One already pending or in flight is left as it is, so
 * asking twice never doubles anything. A re-opening is audited with it.
 */
export class ReplayDeliveryUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly deliveries: DeliveriesRepository,
    private readonly metrics: DeliveryMetrics,
    private readonly logger: Logger,
  ) {}

  async execute(deliveryId: string, partner?: PartnerRetry): Promise<ReplayDeliveryResult> {
    if (!isUuid(deliveryId)) throw validationFailed(['deliveryId']);
    if (partner && !isUuid(partner.partnerId)) throw validationFailed(['partnerId']);
    const scope: ReplayScope = partner
      ? { partnerId: partner.partnerId, reopenFailing: true, reopenDelivered: false }
      : OPERATOR_REPLAY;
    const replay = await withTransaction(this.dataSource, async (manager) => {
      // One retry decision at a time per partner, so concurrent retries cannot overrun the limit.
      if (partner)
        await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`partner-retry:${partner.partnerId}`]);
      const replayed = await this.deliveries.replayOne(deliveryId, manager, scope);
      if (replayed?.reopened) {
        if (partner) await this.spendRetry(manager, partner, deliveryId);
        await recordAudit(manager, {
          action: 'webhook_delivery.replayed',
          partnerId: replayed.partnerId,
          details: { deliveryId, by: partner ? 'partner' : 'operator' },
        });
      }
      return replayed;
    });
    if (replay === null) throw new AppError('DELIVERY_NOT_FOUND');
    if (replay.reopened) this.metrics.deliveriesReplayed(1);
    this.logger.info('webhook delivery replay requested', {
      deliveryId,
      status: replay.status,
      reopened: replay.reopened,
      by: partner ? 'partner' : 'operator',
    });
    return { deliveryId, status: replay.status };
  }

  /** Counts a partner's re-opening, or refuses it (rolling the re-opening back) once the minute's retries are spent. */
  private async spendRetry(manager: EntityManager, partner: PartnerRetry, deliveryId: string): Promise<void> {
    const [window] = (await manager.query(
      `SELECT count(*)::int AS used, ceil(extract(epoch FROM min(requested_at) + $2 * interval '1 second' - now()))::int AS wait_seconds
       FROM partner_retries WHERE partner_id = $1 AND requested_at > now() - $2 * interval '1 second'`,
      [partner.partnerId, RETRY_WINDOW_SECONDS],
    )) as Array<{ used: number; wait_seconds: number | null }>;
    if ((window?.used ?? 0) >= partner.retriesPerMinute) {
      throw new AppError('WEBHOOK_RETRY_LIMITED', {
        retryAfterSeconds: Math.max(1, window?.wait_seconds ?? RETRY_WINDOW_SECONDS),
      });
    }
    await manager.query(
      `DELETE FROM partner_retries WHERE partner_id = $1 AND requested_at <= now() - $2 * interval '1 second'`,
      [partner.partnerId, RETRY_WINDOW_SECONDS],
    );
    await manager.query('INSERT INTO partner_retries (partner_id, delivery_id) VALUES ($1, $2)', [
      partner.partnerId,
      deliveryId,
    ]);
  }
}
