/** Entry point: config → dependencies → server → listen → drain on SIGTERM. */
import { runService } from '@platform/grpc';
import { createLogger } from '@platform/logger';
import { initializeWithRetry } from '@platform/persistence';
import { readConfig } from './config';
import { notifierDataSource, SERVICE_NAME } from './persistence/data-source';
import { createServer } from './server';

async function main(): Promise<void> {
  const config = readConfig();
  const logger = createLogger(SERVICE_NAME, config.LOG_LEVEL);
  const dataSource = await initializeWithRetry(notifierDataSource(config.DATABASE_URL), logger);
  const server = createServer({ dataSource, logger });
  await runService({
    logger,
    server,
    grpcPort: config.GRPC_PORT,
    shutdownGraceMs: config.SHUTDOWN_GRACE_MS,
    stop: async () => {
      await dataSource.destroy();
    },
  });
}

main().catch((error) => {
  createLogger(SERVICE_NAME).error('failed to start', { error });
  process.exit(1);
});
