/** Entry point: config → dependencies → server → listen → drain on SIGTERM. */
// First of all: the standard instrumentations patch pg, ioredis and node:http as they are
// required, so they register (when spans are exported) before anything else loads.
import '@platform/tracing/dist/instrument';
import { createClient, loadServiceTls, runService } from '@platform/grpc';
import { createLogger } from '@platform/logger';
import { observeDatabasePool } from '@platform/metrics';
import { initializeWithRetry } from '@platform/persistence';
import { notifier } from '@platform/proto';
import { startTracing } from '@platform/tracing';
import { GrpcAdminNoticeSender } from './adapters/notifier/admin-notice-sender';
import { GrpcApprovalCodeSender } from './adapters/notifier/approval-code-sender';
import { effectiveAdminWaitingPeriodMs, effectiveCodeTtlMs, readConfig } from './config';
import { SERVICE_NAME, walletRegistryDataSource } from './persistence/data-source';
import { createServer } from './server';

const NOTICE_POLL_INTERVAL_MS = 500;
const NOTICE_BATCH_SIZE = 10;
const NOTICE_LEASE_MARGIN_MS = 10_000;

/**
 * The notices' timer: a pass sends its batch one by one, each bounded by the
 * notifier deadline, so the lease outlasts a whole pass and another replica
 * never retakes a notice still being sent (a retake would only be replayed).
 */
function noticeSchedulerOptions(notifierDeadlineMs: number) {
  return {
    intervalMs: NOTICE_POLL_INTERVAL_MS,
    batchSize: NOTICE_BATCH_SIZE,
    leaseMs: NOTICE_BATCH_SIZE * notifierDeadlineMs + NOTICE_LEASE_MARGIN_MS,
  };
}

async function main(): Promise<void> {
  const config = readConfig();
  const logger = createLogger(SERVICE_NAME, config.LOG_LEVEL);
  const tracing = startTracing({
    service: SERVICE_NAME,
    otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
    sampleRatio: config.OTEL_TRACES_SAMPLER_ARG,
  });
  // Refuses to start on unusable TLS files, or ones naming another identity.
  const tls = loadServiceTls(config, SERVICE_NAME, logger);
  const dataSource = await initializeWithRetry(walletRegistryDataSource(config.DATABASE_URL), logger);
  observeDatabasePool(dataSource);
  const notifierClient = createClient(notifier.NotifierService, {
    upstream: 'notifier',
    tls: tls.client('notifier'),
    address: config.NOTIFIER_GRPC_ADDR,
    logger,
    deadlineMs: config.NOTIFIER_DEADLINE_MS,
  });
  const { server, noticeScheduler } = createServer({
    dataSource,
    logger,
    tls,
    mode: config.PLATFORM_MODE,
    codeHashKeyHex: config.CODE_HASH_KEY,
    codeTtlMs: effectiveCodeTtlMs(config),
    adminWaitingPeriodMs: effectiveAdminWaitingPeriodMs(config),
    approvalCodeSender: new GrpcApprovalCodeSender(notifierClient, logger),
    adminNoticeSender: new GrpcAdminNoticeSender(notifierClient),
    noticeScheduler: noticeSchedulerOptions(config.NOTIFIER_DEADLINE_MS),
  });
  noticeScheduler.start();
  await runService({
    logger,
    server,
    grpcPort: config.GRPC_PORT,
    grpcHost: config.GRPC_HOST,
    healthPort: config.HEALTH_PORT,
    shutdownGraceMs: config.SHUTDOWN_GRACE_MS,
    metrics: { port: config.METRICS_PORT, host: config.HTTP_HOST },
    stop: async () => {
      await noticeScheduler.stop();
      notifierClient.close();
      await dataSource.destroy();
      // Last: spans of the drained calls are exported (bounded) before the process ends.
      await tracing.shutdown();
    },
  });
}

main().catch((error) => {
  createLogger(SERVICE_NAME).error('failed to start', { error });
  process.exit(1);
});
