/** Entry point: config → database and broker → outbox relay → server → listen → drain on SIGTERM. */
// First of all: the standard instrumentations patch pg, ioredis and node:http as they are
// required, so they register (when spans are exported) before anything else loads.
import '@platform/tracing/dist/instrument';
import { AmqpConnection, OutboxRelay } from '@platform/events';
import { loadServiceTls, runService } from '@platform/grpc';
import { createLogger } from '@platform/logger';
import { observeDatabasePool } from '@platform/metrics';
import { initializeWithRetry } from '@platform/persistence';
import { startTracing } from '@platform/tracing';
import { SandboxChainCustodian } from './adapters/chain-custodian/sandbox-chain-custodian';
import { readConfig } from './config';
import { ledgerDataSource, SERVICE_NAME } from './persistence/data-source';
import { createServer } from './server';

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
  const dataSource = await initializeWithRetry(ledgerDataSource(config.DATABASE_URL), logger);
  observeDatabasePool(dataSource);
  const amqp = new AmqpConnection(config.AMQP_URL, logger.child({ context: 'amqp' }));
  // The relay connects lazily and retries: the ledger serves even while the broker is away,
  // and events wait in the outbox until it returns.
  const relay = new OutboxRelay(dataSource, amqp, logger.child({ context: 'OutboxRelay' }), {
    pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS,
  });
  relay.start();
  const { server, sweepers } = createServer({
    dataSource,
    logger,
    tls,
    custodian: new SandboxChainCustodian(),
    sandbox: config.PLATFORM_MODE === 'sandbox',
    onEventsCommitted: () => relay.kick(),
    holdSweepIntervalMs: config.HOLD_SWEEP_INTERVAL_MS,
    holdSweepBatchSize: config.HOLD_SWEEP_BATCH_SIZE,
    funding: { paybillNumber: config.LEDGER_PAYBILL_NUMBER, beneficiaryName: config.LEDGER_BENEFICIARY_NAME },
    depositHoldLimits: { holdMaxMs: config.DEPOSIT_HOLD_MAX_MS },
  });
  sweepers.forEach((sweeper) => sweeper.start());
  await runService({
    logger,
    server,
    grpcPort: config.GRPC_PORT,
    grpcHost: config.GRPC_HOST,
    healthPort: config.HEALTH_PORT,
    shutdownGraceMs: config.SHUTDOWN_GRACE_MS,
    metrics: { port: config.METRICS_PORT, host: config.HTTP_HOST },
    stop: async () => {
      await Promise.all(sweepers.map((sweeper) => sweeper.stop()));
      await relay.stop();
      await amqp.close();
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
