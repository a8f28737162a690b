import { randomUUID } from 'node:crypto';
import type { BusEvent } from '@platform/events';
import type { Logger } from '@platform/logger';
import { isUuid } from '../../domain/ids';
import { BODY_BYTES_MAX, serialisePartnerEnvelope } from '../../domain/partner-envelope';
import type { DeliveriesRepository } from '../../persistence/deliveries.repository';
import type { EndpointsRepository } from '../../persistence/endpoints.repository';

export type AcceptOutcome = 'created' | 'duplicate' | 'no_endpoint';

/**
 * A partner event arrived on the bus: create its delivery, due now. The
 * (event, partner) pair is unique, so a redelivered bus message never makes a
 * second delivery. Events for a partner without an endpoint are not kept: the
 * partner has nowhere to receive them (a later replay can send them once an
 * endpoint is set).
 */
export class AcceptEventUseCase {
  constructor(
    private readonly endpoints: EndpointsRepository,
    private readonly deliveries: DeliveriesRepository,
    private readonly logger: Logger,
  ) {}

  async execute(event: BusEvent): Promise<AcceptOutcome> {
    // A malformed event is a producer bug. Throwing leaves it to the queue: redelivered
    // up to its delivery limit, then dead-lettered where operators can see it.
    if (!isUuid(event.id) || !isUuid(event.partnerId)) throw new Error(`event ${event.id} has a malformed id or partnerId`);
    const body = serialisePartnerEnvelope(event);
    if (Buffer.byteLength(body, 'utf8') > BODY_BYTES_MAX) throw new Error(`event ${event.id} body exceeds ${BODY_BYTES_MAX} bytes`);

    const endpoint = await this.endpoints.find(event.partnerId);
    if (endpoint === null) {
      this.logger.info('no webhook endpoint for partner; event not delivered', { eventId: event.id, eventType: event.type });
      return 'no_endpoint';
    }
    const created = await this.deliveries.insertIfAbsent({
      deliveryId: randomUUID(),
      eventId: event.id,
      partnerId: event.partnerId,
      eventType: event.type,
      body,
      endpointUrl: endpoint.url,
    });
    if (!created) this.logger.info('event already has a delivery; duplicate ignored', { eventId: event.id, eventType: event.type });
    return created ? 'created' : 'duplicate';
  }
}
