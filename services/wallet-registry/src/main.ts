/** Entry point: config → dependencies → server → listen → drain on SIGTERM. */
import { createClient, loadServiceTls, runService } from '@platform/grpc';
import { createLogger } from '@platform/logger';
import { observeDatabasePool } from '@platform/metrics';
import { initializeWithRetry } from '@platform/persistence';
import { notifier } from '@platform/proto';
import { GrpcApprovalCodeSender } from './adapters/notifier/approval-code-sender';
import { effectiveCodeTtlMs, readConfig } from './config';
import { SERVICE_NAME, walletRegistryDataSource } from './persistence/data-source';
import { createServer } from './server';

async function main(): Promise<void> {
  const config = readConfig();
  const logger = createLogger(SERVICE_NAME, config.LOG_LEVEL);
  // Refuses to start on unusable TLS files, or ones naming another identity.
  const tls = loadServiceTls(config, SERVICE_NAME, logger);
  const dataSource = await initializeWithRetry(walletRegistryDataSource(config.DATABASE_URL), logger);
  observeDatabasePool(dataSource);
  const notifierClient = createClient(notifier.NotifierService, {
    upstream: 'notifier', tls: tls.client('notifier'),
    address: config.NOTIFIER_GRPC_ADDR,
    logger,
    deadlineMs: config.NOTIFIER_DEADLINE_MS,
  });
  const server = createServer({
    dataSource,
    logger,
    tls,
    mode: config.PLATFORM_MODE,
    codeHashKeyHex: config.CODE_HASH_KEY,
    codeTtlMs: effectiveCodeTtlMs(config),
    approvalCodeSender: new GrpcApprovalCodeSender(notifierClient, logger),
  });
  await runService({
    logger,
    server,
    grpcPort: config.GRPC_PORT,
    grpcHost: config.GRPC_HOST,
    healthPort: config.HEALTH_PORT,
    shutdownGraceMs: config.SHUTDOWN_GRACE_MS,
    metrics: { port: config.METRICS_PORT, host: config.HTTP_HOST },
    stop: async () => {
      notifierClient.close();
      await dataSource.destroy();
    },
  });
}

main().catch((error) => {
  createLogger(SERVICE_NAME).error('failed to start', { error });
  process.exit(1);
});
