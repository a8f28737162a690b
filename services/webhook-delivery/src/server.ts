/** Wires dependencies into a gRPC server. No I/O here beyond what is passed in. */
import { createGrpcServer, GrpcServer, TlsMaterial } from '@platform/grpc';
import type { SealingKeyRing } from '@platform/crypto';
import type { Logger } from '@platform/logger';
import { DataSource, ListAuditRecordsUseCase, ResealSecretsUseCase } from '@platform/persistence';
import { webhookDelivery } from '@platform/proto';
import type { PlatformMode } from './domain/platform-mode';
import { webhookAdminHandlers } from './grpc/webhook-admin.handlers';
import { SERVICE_NAME } from './persistence/data-source';
import { DeliveriesRepository } from './persistence/deliveries.repository';
import { ENDPOINT_SEALED_COLUMNS, EndpointsRepository } from './persistence/endpoints.repository';
import type { DeliveryMetrics } from './metrics/delivery-metrics';
import { ListDeliveriesUseCase } from './usecases/list-deliveries/list-deliveries.usecase';
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
}

export function createServer(deps: ServerDependencies): GrpcServer {
  const server = createGrpcServer(deps.logger, deps.tls);
  const endpoints = new EndpointsRepository(deps.dataSource);
  const deliveries = new DeliveriesRepository(deps.dataSource);
  server.add(webhookDelivery.WebhookAdminService, webhookAdminHandlers({
    setEndpoint: new SetEndpointUseCase({
      dataSource: deps.dataSource,
      endpoints,
      deliveries,
      mode: deps.mode,
      sealingKeys: deps.sealingKeys,
      logger: deps.logger,
    }),
    listDeliveries: new ListDeliveriesUseCase(deliveries),
    replayDelivery: new ReplayDeliveryUseCase(deps.dataSource, deliveries, deps.metrics, deps.logger.child({ context: 'ReplayDelivery' })),
    resealSecrets: new ResealSecretsUseCase(deps.dataSource, deps.sealingKeys, ENDPOINT_SEALED_COLUMNS, deps.logger.child({ context: 'ResealSecrets' })),
    replayDeliveries: new ReplayDeliveriesUseCase(deps.dataSource, deliveries, deps.metrics, deps.logger.child({ context: 'ReplayDeliveries' })),
    listAuditRecords: new ListAuditRecordsUseCase(deps.dataSource, SERVICE_NAME),
  }), WEBHOOK_DELIVERY_ACCESS.ADMIN);
  return server;
}
