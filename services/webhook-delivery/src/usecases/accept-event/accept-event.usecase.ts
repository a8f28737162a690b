import { randomUUID } from 'node:crypto';
import type { BusEvent } from '@platform/events';
import type { Logger } from '@platform/logger';
import { isUuid } from '../../domain/ids';
import { BODY_BYTES_MAX, serialisePartnerEnvelope } from '../../domain/partner-envelope';
import type { DeliveryMetrics } from '../../metrics/delivery-metrics';
import type { DeliveriesRepository } from '../../persistence/deliveries.repository';
import type { EndpointsRepository } from '../../persistence/endpoints.repository';

/** `no_endpoint`: recorded and held until the partner has an endpoint. */
export type AcceptOutcome = 'created' | 'duplicate' | 'no_endpoint';

/** How far back `webhook set` reaches for held deliveries (older ones need a replay). */
export const HELD_DELIVERY_RETENTION_MS = 72 * 60 * 60_000;

export interface AcceptEventDependencies {
  endpoints: EndpointsRepository;
  deliveries: DeliveriesRepository;
  metrics: DeliveryMetrics;
  logger: Logger;
}

/**
 * A partner event arrived on the bus: create its delivery, due now. The
 * (event, partner) pair is unique, so a redelivered bus message never makes a
 * second delivery.
 *
 * A partner without an endpoint yet still gets the delivery, held as
 * `no_endpoint` with no timer: setting an endpoint opens the held deliveries of
 * the last HELD_DELIVERY_RETENTION_MS, and a replay opens any of them, so an
 * event is sent late rather than never (spec 6.4).
 */
export class AcceptEventUseCase {
  constructor(private readonly deps: AcceptEventDependencies) {}

  async execute(event: BusEvent): Promise<AcceptOutcome> {
    // A malformed event is a producer bug. Throwing leaves it to the queue: redelivered
    // up to its delivery limit, then dead-lettered where operators can see it.
    if (!isUuid(event.id) || !isUuid(event.partnerId)) throw new Error(`event ${event.id} has a malformed id or partnerId`);
    const body = serialisePartnerEnvelope(event);
    if (Buffer.byteLength(body, 'utf8') > BODY_BYTES_MAX) throw new Error(`event ${event.id} body exceeds ${BODY_BYTES_MAX} bytes`);

    const endpoint = await this.deps.endpoints.find(event.partnerId);
    const created = await this.deps.deliveries.insertIfAbsent({
      deliveryId: randomUUID(),
      eventId: event.id,
      partnerId: event.partnerId,
      eventType: event.type,
      body,
      endpointUrl: endpoint?.url ?? null,
    });
    const outcome: AcceptOutcome = !created ? 'duplicate' : endpoint === null ? 'no_endpoint' : 'created';
    this.deps.metrics.eventAccepted(outcome, event.createdAt, Date.now());
    if (outcome === 'duplicate') this.deps.logger.info('event already has a delivery; duplicate ignored', { eventId: event.id, eventType: event.type });
    if (outcome === 'no_endpoint') return this.held(event);
    return outcome;
  }

  /**
   * The endpoint may have been set between our look-up and the insert, after
   * `webhook set` opened the held rows: look again so this one is not left behind.
   */
  private async held(event: BusEvent): Promise<AcceptOutcome> {
    const endpoint = await this.deps.endpoints.find(event.partnerId);
    if (endpoint !== null) {
      await this.deps.deliveries.openHeld(event.partnerId, endpoint.url, new Date(Date.now() - HELD_DELIVERY_RETENTION_MS));
      return 'created';
    }
    this.deps.logger.info('no webhook endpoint for partner; delivery held until one is set', { eventId: event.id, eventType: event.type });
    return 'no_endpoint';
  }
}
