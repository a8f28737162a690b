/**
 * The shape of every service's main: start dependencies, then the metrics
 * endpoint, then listen, then report SERVING; on SIGTERM/SIGINT report
 * NOT_SERVING, then at once stop taking new work (the service's drain: its
 * workers stop claiming, its consumers stop consuming) while the server drains
 * its calls in flight, then close connections, then stop the metrics endpoint
 * last (the drain stays visible), exit. A second signal, or the grace period
 * running out, exits at once.
 */
import type { Logger } from '@platform/logger';
import { startMetricsServer } from '@platform/metrics';
import type { GrpcServer } from './server';

export interface ServiceLifecycle {
  logger: Logger;
  server: GrpcServer;
  grpcPort: number;
  /** The address the gRPC (and health) listeners bind; 127.0.0.1 unless configured. */
  grpcHost?: string;
  /** A plaintext grpc.health.v1-only port for probes without a certificate; none when absent. */
  healthPort?: number;
  shutdownGraceMs: number;
  /** The Prometheus endpoint (GET /metrics): METRICS_PORT, bound to HTTP_HOST. */
  metrics: { port: number; host?: string };
  /** Extra listeners (e.g. the gateway's HTTP server), started after gRPC. */
  startExtra?: () => Promise<void>;
  /**
   * Stops taking new work, finishing what is held: called as soon as the service
   * reports NOT_SERVING, beside the server's drain, so a sibling replica takes
   * the shared work at once rather than after this replica's calls end.
   */
  drain?: () => Promise<unknown>;
  /** Closes connections, in reverse order of start, once the drain and the server's drain are over. */
  stop: () => Promise<void>;
}

export async function runService(lifecycle: ServiceLifecycle): Promise<void> {
  const { logger, server } = lifecycle;
  // First, so a port clash stops the start before the service says SERVING.
  const metricsServer = await startMetricsServer(lifecycle.metrics);
  const port = await server.listen(lifecycle.grpcPort, lifecycle.grpcHost);
  const healthPort = lifecycle.healthPort
    ? await server.listenHealth(lifecycle.healthPort, lifecycle.grpcHost)
    : undefined;
  await lifecycle.startExtra?.();
  server.health.setServing(true);
  logger.info('service ready', {
    grpcPort: port,
    grpcHost: lifecycle.grpcHost,
    metricsPort: metricsServer.port,
    ...(healthPort ? { healthPort } : {}),
  });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info('shutting down', { signal });
    const timer = setTimeout(() => {
      logger.error('graceful shutdown timed out; exiting');
      process.exit(1);
    }, lifecycle.shutdownGraceMs + 2_000);
    timer.unref();
    server.health.setServing(false);
    // Started before the server's drain so no claim begins after NOT_SERVING; both bounded by the grace.
    const drained = drainWork(lifecycle);
    await Promise.all([server.shutdown(lifecycle.shutdownGraceMs), drained]);
    await lifecycle.stop();
    await metricsServer.close();
    // Stopped in time: no exit(1) may follow, even where exit does not end the process (a test).
    clearTimeout(timer);
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

/** The service's drain; a failure is logged, and the connections are still closed after it. */
async function drainWork(lifecycle: ServiceLifecycle): Promise<void> {
  try {
    await lifecycle.drain?.();
  } catch (error) {
    lifecycle.logger.error('draining background work failed; closing anyway', { error });
  }
}
