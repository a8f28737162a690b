import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface TestStack {
  profile: string;
  gatewayUrl: string;
  /** The first replica's gRPC address of each service. */
  grpc: Record<string, string>;
  /** Every replica of each service (STACK_REPLICAS; one each by default). */
  replicas?: Record<string, Array<{ replica: number; grpc: string; metricsUrl: string }>>;
  tlsDir: string;
  /** The stack's CA and the certificate of every identity (each service, and ops). */
  tls?: { caFile: string; identities: Record<string, { certFile: string; keyFile: string }> };
  /** The CA file the stack was started with in NODE_EXTRA_CA_CERTS (trusted beside its own), or null. */
  callerCaFile?: string | null;
  logsDir: string;
  databases: Record<string, string>;
  redisUrl: string;
  amqpUrl: string;
  /** The stack's time scale for retry delays (0.05 in the test stack). */
  sandboxTimeScale?: number;
  webhookDeliveryMetricsUrl?: string;
  /** Each service's Prometheus endpoint (http://127.0.0.1:<METRICS_PORT>/metrics), by service name. */
  metricsUrls?: Record<string, string>;
  /** The stack's PostgreSQL; `urlTemplate` has `{database}` where the database name goes. */
  postgres?: { urlTemplate: string };
  /** Every service's environment (mode 0600), for starting an extra instance. */
  serviceEnvFile?: string;
}

let cached: TestStack | null = null;

/** The running test stack, as written by scripts/test.mjs. */
export function loadTestStack(): TestStack {
  if (cached) return cached;
  const file = process.env.TEST_STACK_FILE;
  if (!file) throw new Error('TEST_STACK_FILE is not set: integration tests run through `npm test`');
  cached = JSON.parse(readFileSync(file, 'utf8')) as TestStack;
  return cached;
}

/**
 * The log files of every replica of `service` the stack runs (replica r > 1
 * writes <service>-<r>.log): the balancer may send a call to any of them, so a
 * spec looking for a service's log line reads them all.
 */
export function serviceLogFiles(service: string): string[] {
  const stack = loadTestStack();
  const replicas = stack.replicas?.[service]?.map((entry) => entry.replica) ?? [1];
  return replicas.map((replica) =>
    path.join(stack.logsDir, replica === 1 ? `${service}.log` : `${service}-${replica}.log`),
  );
}

/** Every replica's log of `service`, concatenated (a file not written yet reads as empty). */
export function readServiceLogs(service: string): string {
  return serviceLogFiles(service)
    .map((file) => (existsSync(file) ? readFileSync(file, 'utf8') : ''))
    .join('\n');
}
