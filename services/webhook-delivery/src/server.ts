/** Wires dependencies into a gRPC server. No I/O here beyond what is passed in. */
import { createGrpcServer, GrpcServer } from '@platform/grpc';
import type { Logger } from '@platform/logger';
import type { DataSource } from '@platform/persistence';
import { webhookDelivery } from '@platform/proto';
import type { PlatformMode } from './domain/platform-mode';
import { webhookAdminHandlers } from './grpc/webhook-admin.handlers';
import { DeliveriesRepository } from './persistence/deliveries.repository';
import { EndpointsRepository } from './persistence/endpoints.repository';
import { ListDeliveriesUseCase } from './usecases/list-deliveries/list-deliveries.usecase';
import { SetEndpointUseCase } from './usecases/set-endpoint/set-endpoint.usecase';

export interface ServerDependencies {
  dataSource: DataSource;
  logger: Logger;
  mode: PlatformMode;
  secretEncryptionKeyHex: string;
}

export function createServer(deps: ServerDependencies): GrpcServer {
  const server = createGrpcServer(deps.logger);
  const endpoints = new EndpointsRepository(deps.dataSource);
  server.add(webhookDelivery.WebhookAdminService, webhookAdminHandlers({
    setEndpoint: new SetEndpointUseCase({
      dataSource: deps.dataSource,
      endpoints,
      mode: deps.mode,
      secretEncryptionKeyHex: deps.secretEncryptionKeyHex,
      logger: deps.logger,
    }),
    listDeliveries: new ListDeliveriesUseCase(new DeliveriesRepository(deps.dataSource)),
  }));
  return server;
}
