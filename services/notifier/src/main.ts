/** Entry point: config → dependencies → server → listen → drain on SIGTERM. */
// First of all: the standard instrumentations patch pg, ioredis and node:http as they are
// required, so they register (when spans are exported) before anything else loads.
import '@platform/tracing/dist/instrument';
import { loadServiceTls, runService } from '@platform/grpc';
import { createLogger } from '@platform/logger';
import { observeDatabasePool } from '@platform/metrics';
import { initializeWithRetry } from '@platform/persistence';
import { startTracing } from '@platform/tracing';
import type { MailTransport } from './adapters/transport/mail-transport';
import { SandboxTransport } from './adapters/transport/sandbox-transport';
import { SmtpTransport } from './adapters/transport/smtp-transport';
import { Config, readConfig } from './config';
import { notifierDataSource, SERVICE_NAME } from './persistence/data-source';
import { createServer } from './server';

/** Production sends by SMTP (its settings are required there); sandbox mode stores the outbox. */
function createTransport(config: Config): MailTransport {
  if (config.PLATFORM_MODE === 'production' && config.SMTP_URL && config.SMTP_FROM) {
    return new SmtpTransport({ url: config.SMTP_URL, from: config.SMTP_FROM });
  }
  if (config.PLATFORM_MODE === 'production') throw new Error('production mode without SMTP settings');
  return new SandboxTransport();
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
  const dataSource = await initializeWithRetry(notifierDataSource(config.DATABASE_URL), logger);
  observeDatabasePool(dataSource);
  const transport = createTransport(config);
  const server = createServer({ dataSource, logger, tls, transport });
  logger.info('transport selected', { transport: transport.name });
  await runService({
    logger,
    server,
    grpcPort: config.GRPC_PORT,
    grpcHost: config.GRPC_HOST,
    healthPort: config.HEALTH_PORT,
    shutdownGraceMs: config.SHUTDOWN_GRACE_MS,
    metrics: { port: config.METRICS_PORT, host: config.HTTP_HOST },
    stop: async () => {
      transport.close();
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
