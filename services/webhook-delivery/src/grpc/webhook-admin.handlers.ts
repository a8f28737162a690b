import type { AsyncImplementation } from '@platform/grpc';
import type { ListAuditRecordsUseCase, ResealSecretsUseCase } from '@platform/persistence';
import { webhookDelivery } from '@platform/proto';
import type { DeliverySummary } from '../persistence/deliveries.repository';
import type { EndpointRecord } from '../persistence/endpoints.repository';
import type { ListDeliveriesUseCase } from '../usecases/list-deliveries/list-deliveries.usecase';
import type { ReplayDeliveriesUseCase } from '../usecases/replay-deliveries/replay-deliveries.usecase';
import type { ReplayDeliveryUseCase } from '../usecases/replay-delivery/replay-delivery.usecase';
import type { SetEndpointUseCase } from '../usecases/set-endpoint/set-endpoint.usecase';

/** Translates gRPC messages to commands and results back; no decisions here. */
export function webhookAdminHandlers(deps: {
  setEndpoint: SetEndpointUseCase;
  listDeliveries: ListDeliveriesUseCase;
  replayDelivery: ReplayDeliveryUseCase;
  replayDeliveries: ReplayDeliveriesUseCase;
  resealSecrets: ResealSecretsUseCase;
  listAuditRecords: ListAuditRecordsUseCase;
}): AsyncImplementation<typeof webhookDelivery.WebhookAdminService> {
  return {
    resealSecrets: (request) => deps.resealSecrets.execute(request),
    listAuditRecords: (request) => deps.listAuditRecords.execute(request),
    async setEndpoint(request) {
      const endpoint = await deps.setEndpoint.execute({
        partnerId: request.partnerId,
        url: request.url,
        signingSecret: request.signingSecret,
        rotationOverlapSeconds: request.rotationOverlapSeconds,
      });
      return toEndpointMessage(endpoint);
    },
    async listDeliveries(request) {
      const deliveries = await deps.listDeliveries.execute({
        partnerId: request.partnerId,
        deadOnly: request.deadOnly,
        limit: request.limit,
      });
      return { deliveries: deliveries.map(toDeliveryMessage) };
    },
    async replayDelivery(request) {
      return deps.replayDelivery.execute(request.deliveryId);
    },
    async replayDeliveries(request) {
      return deps.replayDeliveries.execute({
        partnerId: request.partnerId,
        since: request.since,
        until: request.until,
        deadOnly: request.deadOnly,
        limit: request.limit,
      });
    },
  };
}

function toEndpointMessage(endpoint: EndpointRecord): webhookDelivery.Endpoint {
  return {
    partnerId: endpoint.partnerId,
    url: endpoint.url,
    updatedAt: endpoint.updatedAt.toISOString(),
    previousSecretExpiresAt: endpoint.previousSecretExpiresAt?.toISOString(),
  };
}

function toDeliveryMessage(delivery: DeliverySummary): webhookDelivery.Delivery {
  return {
    deliveryId: delivery.deliveryId,
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    partnerId: delivery.partnerId,
    status: delivery.status,
    attemptCount: delivery.attemptCount,
    replayCount: delivery.replayCount,
    lastStatusCode: delivery.lastStatusCode ?? undefined,
    lastErrorClass: delivery.lastErrorClass ?? undefined,
    nextAttemptAt: delivery.nextAttemptAt?.toISOString(),
    createdAt: delivery.createdAt.toISOString(),
    deliveredAt: delivery.deliveredAt?.toISOString(),
  };
}
