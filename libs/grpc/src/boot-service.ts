/**
 * The start every service shares, so its main.ts states only what is its own:
 * read and validate the configuration, create the logger, start tracing, load
 * the TLS identity (refusing another service's), connect the database (retrying
 * while it starts) and watch its pool; then the service's own dependencies and
 * server; then its retention sweepers, when it names tables to prune; then
 * runService. On shutdown, as soon as the service reports NOT_SERVING, its own
 * drain runs and the retention sweepers stop beside it (no new claims while the
 * server drains its calls); then the service's own stop, then the database
 * closes, then tracing exports what is queued, last. A failed start logs
 * `failed to start` and exits 1.
 */
import { createLogger, Logger } from '@platform/logger';
import { observeDatabasePool } from '@platform/metrics';
import { DataSource, initializeWithRetry, RetentionRule, startRetention } from '@platform/persistence';
import { startTracing } from '@platform/tracing';
import { ClientOptions, createClient, PromiseClient } from './client';
import { runService, ServiceLifecycle } from './run-service';
import type { GrpcServer } from './server';
import { loadServiceTls, TlsMaterial, TlsSettings } from './tls';

/** The variables of libs/config `commonServiceEnv` and `metricsEnv` the start reads. */
export interface BootConfig extends TlsSettings {
  LOG_LEVEL: string;
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  OTEL_TRACES_SAMPLER_ARG: number;
  DATABASE_URL: string;
  GRPC_PORT: number;
  GRPC_HOST?: string;
  HEALTH_PORT?: number;
  SHUTDOWN_GRACE_MS: number;
  METRICS_PORT: number;
  HTTP_HOST?: string;
}

/** The variables of libs/config `retentionEnv` a service with retention reads. */
export interface RetentionConfig {
  RETENTION_INTERVAL_MS: number;
  RETENTION_BATCH_SIZE: number;
}

/** What the shared start hands a service to build on. */
export interface BootContext<C extends BootConfig> {
  config: C;
  logger: Logger;
  tls: TlsMaterial;
  dataSource: DataSource;
  /** A client of the peer service `upstream` at `address`, presenting this service's identity; close it on stop. */
  peer<D extends Parameters<typeof createClient>[0]>(
    definition: D,
    upstream: string,
    address: string,
    options?: Pick<ClientOptions, 'deadlineMs'>,
  ): PromiseClient<D>;
}

/** A service's own part, once its dependencies are started. */
export interface StartedService {
  server: GrpcServer;
  /** Extra listeners (e.g. the gateway's HTTP server), started after gRPC. */
  startExtra?: ServiceLifecycle['startExtra'];
  /**
   * Stops taking new work as soon as the service reports NOT_SERVING, beside the
   * server's drain: workers stop claiming (handing back what they have not started),
   * consumers stop consuming, the gateway reports not ready. Its promise ends once
   * what was held is finished (bounded). Absent when the service has no such work.
   */
  drain?: () => Promise<unknown>;
  /** Closes the service's connections once drained; the database and tracing close after it. */
  stop: () => Promise<void>;
}

export interface ServiceBoot<C extends BootConfig> {
  /** The service's identity and name: its TLS identity, its logs' and spans' service name. */
  service: string;
  readConfig: () => C;
  /** The service's data source, not yet connected. */
  dataSource: (databaseUrl: string) => DataSource;
  start: (context: BootContext<C>) => Promise<StartedService> | StartedService;
  /**
   * The service's tables pruned past their window (docs/retention.md), when it has any: one
   * sweeper each, every RETENTION_INTERVAL_MS, at most RETENTION_BATCH_SIZE rows a statement.
   * They start once the service's own work has, and stop beside its drain.
   */
  retention?: C extends RetentionConfig ? (config: C) => readonly RetentionRule[] : never;
}

/** Runs a service's main: starts it, serves it until a signal, or logs the failed start and exits 1. */
export function bootService<C extends BootConfig>(boot: ServiceBoot<C>): void {
  startService(boot).catch((error) => {
    createLogger(boot.service).error('failed to start', { error });
    process.exit(1);
  });
}

async function startService<C extends BootConfig>(boot: ServiceBoot<C>): Promise<void> {
  const config = boot.readConfig();
  const logger = createLogger(boot.service, config.LOG_LEVEL);
  const tracing = startTracing({
    service: boot.service,
    otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
    sampleRatio: config.OTEL_TRACES_SAMPLER_ARG,
  });
  // Refuses to start on unusable TLS files, or ones naming another identity.
  const tls = loadServiceTls(config, boot.service, logger);
  const dataSource = await initializeWithRetry(boot.dataSource(config.DATABASE_URL), logger);
  observeDatabasePool(dataSource);
  const peer: BootContext<C>['peer'] = (definition, upstream, address, options) =>
    createClient(definition, { upstream, tls: tls.client(upstream), address, logger, ...options });
  const started = await boot.start({ config, logger, tls, dataSource, peer });
  const retention = startServiceRetention(boot, config, dataSource, logger);
  await runService({
    logger,
    server: started.server,
    grpcPort: config.GRPC_PORT,
    grpcHost: config.GRPC_HOST,
    healthPort: config.HEALTH_PORT,
    shutdownGraceMs: config.SHUTDOWN_GRACE_MS,
    metrics: { port: config.METRICS_PORT, host: config.HTTP_HOST },
    startExtra: started.startExtra,
    drain: () => Promise.all([started.drain?.(), retention?.stop()]),
    stop: async () => {
      await started.stop();
      await dataSource.destroy();
      // Last: spans of the drained calls are exported (bounded) before the process ends.
      await tracing.shutdown();
    },
  });
}

function startServiceRetention<C extends BootConfig>(
  boot: ServiceBoot<C>,
  config: C,
  dataSource: DataSource,
  logger: Logger,
): ReturnType<typeof startRetention> | undefined {
  if (!boot.retention) return undefined;
  // `retention` is typed only where the configuration has the retention variables.
  const retentionConfig = config as C & RetentionConfig;
  const rules = boot.retention as unknown as (config: C & RetentionConfig) => readonly RetentionRule[];
  return startRetention(dataSource, rules(retentionConfig), logger, {
    intervalMs: retentionConfig.RETENTION_INTERVAL_MS,
    batchSize: retentionConfig.RETENTION_BATCH_SIZE,
  });
}
