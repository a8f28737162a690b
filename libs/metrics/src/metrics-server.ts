/**
 * The Prometheus endpoint of a service: GET /metrics on METRICS_PORT, plain
 * HTTP (it carries no secret, and Prometheus scrapes it from the monitoring
 * namespace only: a NetworkPolicy per service), bound to HTTP_HOST like the
 * services' other HTTP listeners. Anything else is 404. A scrape that cannot be
 * rendered is a 500, never a half-written body.
 */
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectProcessMetrics, metricsRegistry, Registry } from './registry';

export const METRICS_PATH = '/metrics';
/** A scrape answers well within Prometheus's own timeout (10 s by default). */
const SCRAPE_TIMEOUT_MS = 8_000;
/** How long close() lets a scrape in flight finish before cutting it. */
const CLOSE_GRACE_MS = 1_000;

export interface MetricsServerOptions {
  port: number;
  /** The address to bind: 127.0.0.1 unless configured (Kubernetes sets 0.0.0.0). */
  host?: string;
  registry?: Registry;
}

export interface MetricsServer {
  /** The bound port (the one asked for, or the OS's pick for 0). */
  port: number;
  close(): Promise<void>;
}

function answer(registry: Registry, request: IncomingMessage, response: ServerResponse): void {
  const path = (request.url ?? '').split('?')[0];
  if (request.method !== 'GET' || path !== METRICS_PATH) {
    response.writeHead(404).end();
    return;
  }
  registry.metrics().then(
    (text) => response.writeHead(200, { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' }).end(text),
    () => response.writeHead(500).end(),
  );
}

/** Starts serving the registry (with Node's process metrics on it); resolves once listening. */
export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  const registry = options.registry ?? metricsRegistry;
  collectProcessMetrics(registry);
  const server: Server = createServer({ requestTimeout: SCRAPE_TIMEOUT_MS }, (request, response) =>
    answer(registry, request, response),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
