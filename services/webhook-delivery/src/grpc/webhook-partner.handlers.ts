import { type AsyncImplementation, pageText } from '@platform/grpc';
import type { webhookDeliveryPartnerFeed } from '@platform/proto';
import { partnerStatusOf } from '../domain/partner-delivery-status';
import type { DeliverySummary } from '../persistence/deliveries.repository';
import type { PartnerDeliveriesRepository } from '../persistence/partner-deliveries.repository';
import type { ListEventsUseCase } from '../usecases/list-events/list-events.usecase';
import type { ListPartnerDeliveriesUseCase } from '../usecases/list-partner-deliveries/list-partner-deliveries.usecase';
import type { ReplayDeliveryUseCase } from '../usecases/replay-delivery/replay-delivery.usecase';

/** The partner's side (reached by the gateway): messages to commands and results back; no decisions here. */
export function webhookPartnerHandlers(deps: {
  listEvents: ListEventsUseCase;
  listDeliveries: ListPartnerDeliveriesUseCase;
  replayDelivery: ReplayDeliveryUseCase;
  /** Reads the delivery back after a retry, in the partner's scope. */
  deliveries: Pick<PartnerDeliveriesRepository, 'get'>;
  retriesPerMinute: number;
}): AsyncImplementation<typeof webhookDeliveryPartnerFeed.WebhookPartnerService> {
  return {
    async listEvents(request) {
      const query = {
        partnerId: request.partnerId,
        afterEventId: request.afterEventId,
        eventType: request.eventType,
        limit: request.limit,
      };
      if (request.asJsonArray) {
        const page = await deps.listEvents.executeAsJsonArray(query);
        return {
          events: [],
          pageJson: pageText(page.json),
          nextAfterEventId: page.nextAfterEventId,
          retentionDays: page.retentionDays,
        };
      }
      const page = await deps.listEvents.execute(query);
      return {
        events: page.events.map((event) => ({
          eventId: event.eventId,
          eventType: event.eventType,
          envelopeJson: event.body,
        })),
        pageJson: Buffer.alloc(0),
        nextAfterEventId: page.nextAfterEventId,
        retentionDays: page.retentionDays,
      };
    },
    async listPartnerDeliveries(request) {
      const page = await deps.listDeliveries.execute({
        partnerId: request.partnerId,
        status: request.status,
        limit: request.limit,
        cursor: request.cursor,
      });
      return { deliveries: page.deliveries.map(toPartnerDelivery), nextCursor: page.nextCursor };
    },
    async retryDelivery(request) {
      await deps.replayDelivery.execute(request.deliveryId, {
        partnerId: request.partnerId,
        retriesPerMinute: deps.retriesPerMinute,
      });
      const delivery = await deps.deliveries.get(request.partnerId, request.deliveryId);
      if (!delivery) throw new Error('a delivery just retried could not be read back');
      return toPartnerDelivery(delivery);
    },
  };
}

function toPartnerDelivery(delivery: DeliverySummary): webhookDeliveryPartnerFeed.PartnerDelivery {
  return {
    deliveryId: delivery.deliveryId,
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    status: partnerStatusOf(delivery.status, delivery.attemptCount),
    attemptCount: delivery.attemptCount,
    lastStatusCode: delivery.lastStatusCode ?? undefined,
    lastErrorClass: delivery.lastErrorClass ?? undefined,
    nextAttemptAt: delivery.nextAttemptAt?.toISOString(),
    createdAt: delivery.createdAt.toISOString(),
    deliveredAt: delivery.deliveredAt?.toISOString(),
  };
}
