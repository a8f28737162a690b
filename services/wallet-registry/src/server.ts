/** Wires dependencies into a gRPC server. No I/O here beyond what is passed in. */
import { createGrpcServer, GrpcServer } from '@platform/grpc';
import type { Logger } from '@platform/logger';
import type { DataSource } from '@platform/persistence';
import { walletRegistry } from '@platform/proto';
import { walletRegistryAdminHandlers } from './grpc/wallet-registry-admin.handlers';
import { PartnerSettingsRepository } from './persistence/partner-settings.repository';
import { ConfigurePartnerUseCase } from './usecases/configure-partner/configure-partner.usecase';

export interface ServerDependencies {
  dataSource: DataSource;
  logger: Logger;
}

export function createServer(deps: ServerDependencies): GrpcServer {
  const server = createGrpcServer(deps.logger);
  const settings = new PartnerSettingsRepository(deps.dataSource);
  server.add(walletRegistry.WalletRegistryAdminService, walletRegistryAdminHandlers({
    configurePartner: new ConfigurePartnerUseCase(settings),
  }));
  return server;
}
