/** Wires dependencies into a gRPC server. No I/O here beyond what is passed in. */
import { createGrpcServer, GrpcServer } from '@platform/grpc';
import type { Logger } from '@platform/logger';
import type { DataSource } from '@platform/persistence';
import { webhookDelivery } from '@platform/proto';
import type { PlatformMode } from './domain/platform-mode';
import { webhookAdminHandlers } from './grpc/webhook-admin.handlers';
import { DeliveriesRepository } from './persistence/deliveries.repository';
import { EndpointsRepository } from './persistence/endpoints.repository';
import type { DeliveryMetrics } from './metrics/delivery-metrics';
import { ListDeliveriesUseCase } from './usecases/list-deliveries/list-deliveries.usecase';
import { ReplayDeliveriesUseCase } from './usecases/replay-deliveries/replay-deliveries.usecase';
import { ReplayDeliveryUseCase } from './usecases/replay-delivery/replay-delivery.usecase';
import { SetEndpointUseCase } from './usecases/set-endpoint/set-endpoint.usecase';

export interface ServerDependencies {
  dataSource: DataSource;
  logger: Logger;
  mode: PlatformMode;
  secretEncryptionKeyHex: string;
  metrics: DeliveryMetrics;
}

export function createServer(deps: ServerDependencies): GrpcServer {
  const server = createGrpcServer(deps.logger);
  const endpoints = new EndpointsRepository(deps.dataSource);
  const deliveries = new DeliveriesRepository(deps.dataSource);
  server.add(webhookDelivery.WebhookAdminService, webhookAdminHandlers({
    setEndpoint: new SetEndpointUseCase({
      dataSource: deps.dataSource,
      endpoints,
      deliveries,
      mode: deps.mode,
      secretEncryptionKeyHex: deps.secretEncryptionKeyHex,
      logger: deps.logger,
    }),
    listDeliveries: new ListDeliveriesUseCase(deliveries),
    replayDelivery: new ReplayDeliveryUseCase(deliveries, deps.metrics, deps.logger.child({ context: 'ReplayDelivery' })),
    replayDeliveries: new ReplayDeliveriesUseCase(deliveries, deps.metrics, deps.logger.child({ context: 'ReplayDeliveries' })),
  }));
  return server;
}
