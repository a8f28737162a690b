/** Entry point: config → dependencies → server → listen → drain on SIGTERM. */
// First of all: the standard instrumentations patch pg, ioredis and node:http as they are
// required, so they register (when spans are exported) before anything else loads.
import '@platform/tracing/dist/instrument';
import { AmqpConnection, OutboxRelay } from '@platform/events';
import { createClient, loadServiceTls, runService } from '@platform/grpc';
import { createLogger } from '@platform/logger';
import { observeDatabasePool } from '@platform/metrics';
import { initializeWithRetry, sleep } from '@platform/persistence';
import { ledger } from '@platform/proto';
import { startTracing } from '@platform/tracing';
import { GrpcLedgerCredits } from './adapters/ledger.adapter';
import { SandboxUsdRails, UnavailableUsdRails } from './adapters/usd-rails.adapter';
import { effectiveLifetimeMs, readConfig } from './config';
import { collectionsDataSource, SERVICE_NAME } from './persistence/data-source';
import { createServer } from './server';
import { StepScheduler } from './workers/step-scheduler';

/** How long shutdown lets the relay finish its in-flight batch before closing the broker connection under it. */
const RELAY_DRAIN_MS_MAX = 3_000;

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
  const dataSource = await initializeWithRetry(collectionsDataSource(config.DATABASE_URL), logger);
  observeDatabasePool(dataSource);
  // The broker is not awaited: events wait in the outbox while it is away, so
  // collections can serve without it; the connection retries in the background.
  const amqp = new AmqpConnection(config.AMQP_URL, logger.child({ context: 'AmqpConnection' }));
  void amqp.connect().catch(() => undefined);
  const relay = new OutboxRelay(dataSource, amqp, logger.child({ context: 'OutboxRelay' }));
  relay.start();
  const ledgerClient = createClient(ledger.LedgerService, {
    upstream: 'ledger',
    tls: tls.client('ledger'),
    address: config.LEDGER_GRPC_ADDR,
    logger,
    deadlineMs: config.LEDGER_DEADLINE_MS,
  });
  // No production USD rails are integrated yet: production refuses to open collections rather than hand out sandbox instructions.
  const { server, steps } = createServer({
    dataSource,
    logger,
    tls,
    mode: config.PLATFORM_MODE,
    ledger: new GrpcLedgerCredits(ledgerClient),
    rails: config.PLATFORM_MODE === 'sandbox' ? new SandboxUsdRails() : new UnavailableUsdRails(),
    defaultFeeTerms: {
      percentBps: config.COLLECTION_FEE_BPS_DEFAULT,
      flatMinor: BigInt(config.COLLECTION_FEE_FLAT_MINOR_DEFAULT),
      capMinor: BigInt(config.COLLECTION_FEE_CAP_MINOR_DEFAULT),
    },
    lifetimeMs: effectiveLifetimeMs(config),
    stepBatchSize: config.STEP_BATCH_SIZE,
  });
  const scheduler = new StepScheduler(steps, config.STEP_INTERVAL_MS, logger.child({ context: 'StepScheduler' }));
  scheduler.start();
  await runService({
    logger,
    server,
    grpcPort: config.GRPC_PORT,
    grpcHost: config.GRPC_HOST,
    healthPort: config.HEALTH_PORT,
    shutdownGraceMs: config.SHUTDOWN_GRACE_MS,
    metrics: { port: config.METRICS_PORT, host: config.HTTP_HOST },
    stop: async () => {
      await scheduler.stop();
      const relayStopped = relay.stop();
      await Promise.race([relayStopped, sleep(RELAY_DRAIN_MS_MAX)]);
      // Closing the connection also ends a connect attempt the relay may still be waiting on.
      await amqp.close();
      await relayStopped;
      ledgerClient.close();
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
