/** Wires dependencies into a gRPC server. No I/O here beyond what is passed in. */
import { createGrpcServer, GrpcServer, TlsMaterial, withPageAnswer } from '@platform/grpc';
import type { SealingKeyRing } from '@platform/crypto';
import type { Logger } from '@platform/logger';
import { DataSource, ListAuditRecordsUseCase, ResealSecretsUseCase } from '@platform/persistence';
import { webhookDelivery, webhookDeliveryPartnerFeed } from '@platform/proto';
import type { PlatformMode } from './domain/platform-mode';
import { webhookAdminHandlers } from './grpc/webhook-admin.handlers';
import { webhookPartnerHandlers } from './grpc/webhook-partner.handlers';
import { SERVICE_NAME } from './persistence/data-source';
import { DeliveriesRepository } from './persistence/deliveries.repository';
import { ENDPOINT_SEALED_COLUMNS, EndpointsRepository } from './persistence/endpoints.repository';
import { EventFeedRepository } from './persistence/event-feed.repository';
import { PartnerDeliveriesRepository } from './persistence/partner-deliveries.repository';
import type { DeliveryMetrics } from './metrics/delivery-metrics';
import { ListDeliveriesUseCase } from './usecases/list-deliveries/list-deliveries.usecase';
import { ListEventsUseCase } from './usecases/list-events/list-events.usecase';
import { ListPartnerDeliveriesUseCase } from './usecases/list-partner-deliveries/list-partner-deliveries.usecase';
import { ReplayDeliveriesUseCase } from './usecases/replay-deliveries/replay-deliveries.usecase';
import { ReplayDeliveryUseCase } from './usecases/replay-delivery/replay-delivery.usecase';
import { SetEndpointUseCase } from './usecases/set-endpoint/set-endpoint.usecase';
import { WEBHOOK_DELIVERY_ACCESS } from './grpc/access';

export interface ServerDependencies {
  dataSource: DataSource;
  logger: Logger;
  /** This service's mutual-TLS material (its identity), shared with its clients. */
  tls: TlsMaterial;
  mode: PlatformMode;
  sealingKeys: SealingKeyRing;
  metrics: DeliveryMetrics;
  /** The events feed and partners' retries (config: EVENT_FEED_RETENTION_DAYS, FEED_POSITION_BATCH_SIZE, PARTNER_RETRIES_PER_MINUTE). */
  partnerPlane: { retentionDays: number; positionBatchSize: number; retriesPerMinute: number };
}

export function createServer(deps: ServerDependencies): GrpcServer {
  const server = createGrpcServer(deps.logger, deps.tls);
  const endpoints = new EndpointsRepository(deps.dataSource);
  const deliveries = new DeliveriesRepository(deps.dataSource);
  const replayDelivery = new ReplayDeliveryUseCase(
    deps.dataSource,
    deliveries,
    deps.metrics,
    deps.logger.child({ context: 'ReplayDelivery' }),
  );
  const partnerDeliveries = new PartnerDeliveriesRepository(deps.dataSource);
  server.add(
    // An events page goes out as its JSON bytes with fewer copies than the generated codec makes.
    withPageAnswer(
      webhookDeliveryPartnerFeed.WebhookPartnerService,
      'listEvents',
      webhookDeliveryPartnerFeed.ListEventsResponse,
      'pageJson',
      'serve',
    ),
    webhookPartnerHandlers({
      listEvents: new ListEventsUseCase(new EventFeedRepository(deps.dataSource), deps.partnerPlane),
      listDeliveries: new ListPartnerDeliveriesUseCase(partnerDeliveries),
      replayDelivery,
      deliveries: partnerDeliveries,
      retriesPerMinute: deps.partnerPlane.retriesPerMinute,
    }),
    WEBHOOK_DELIVERY_ACCESS.PARTNER,
  );
  server.add(
    webhookDelivery.WebhookAdminService,
    webhookAdminHandlers({
      setEndpoint: new SetEndpointUseCase({
        dataSource: deps.dataSource,
        endpoints,
        deliveries,
        mode: deps.mode,
        sealingKeys: deps.sealingKeys,
        logger: deps.logger,
      }),
      listDeliveries: new ListDeliveriesUseCase(deliveries),
      replayDelivery,
      resealSecrets: new ResealSecretsUseCase(
        deps.dataSource,
        deps.sealingKeys,
        ENDPOINT_SEALED_COLUMNS,
        deps.logger.child({ context: 'ResealSecrets' }),
      ),
      replayDeliveries: new ReplayDeliveriesUseCase(
        deps.dataSource,
        deliveries,
        deps.metrics,
        deps.logger.child({ context: 'ReplayDeliveries' }),
      ),
      listAuditRecords: new ListAuditRecordsUseCase(deps.dataSource, SERVICE_NAME),
    }),
    WEBHOOK_DELIVERY_ACCESS.ADMIN,
  );
  return server;
}
