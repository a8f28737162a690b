/** Wires dependencies into a gRPC server. No I/O here beyond what is passed in. */
import { createGrpcServer, GrpcServer } from '@platform/grpc';
import type { Logger } from '@platform/logger';
import type { DataSource } from '@platform/persistence';

export interface ServerDependencies {
  dataSource: DataSource;
  logger: Logger;
}

/**
 * Serves grpc.health.v1 only: notifier.v1 defines no RPCs yet (they arrive with
 * the notifier work, issue 4, and are registered here with `server.add`).
 */
export function createServer(deps: ServerDependencies): GrpcServer {
  return createGrpcServer(deps.logger);
}
