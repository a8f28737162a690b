/**
 * grpc.health.v1, served by every service. Kubernetes' native gRPC probes and
 * our start-up scripts call Check; a service reports SERVING only once its
 * dependencies are connected, and NOT_SERVING as soon as it starts draining.
 */
import { credentials, Client, Metadata, ServerWritableStream, ServerUnaryCall, sendUnaryData } from '@grpc/grpc-js';
import { health } from '@platform/proto';

const { HealthCheckResponse_ServingStatus: ServingStatus } = health;

export class HealthState {
  private serving = false;
  private readonly watchers = new Set<ServerWritableStream<health.HealthCheckRequest, health.HealthCheckResponse>>();

  setServing(serving: boolean): void {
    this.serving = serving;
    for (const watcher of this.watchers) watcher.write({ status: this.status() });
  }

  isServing(): boolean {
    return this.serving;
  }

  status(): health.HealthCheckResponse_ServingStatus {
    return this.serving ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
  }

  implementation() {
    return {
      check: (_call: ServerUnaryCall<health.HealthCheckRequest, health.HealthCheckResponse>, callback: sendUnaryData<health.HealthCheckResponse>) =>
        callback(null, { status: this.status() }),
      watch: (call: ServerWritableStream<health.HealthCheckRequest, health.HealthCheckResponse>) => {
        this.watchers.add(call);
        call.write({ status: this.status() });
        call.on('cancelled', () => this.watchers.delete(call));
        call.on('close', () => this.watchers.delete(call));
      },
    };
  }

  endWatches(): void {
    for (const watcher of this.watchers) watcher.end();
    this.watchers.clear();
  }
}

/** Asks a service's health once, on a connection of its own. True only for SERVING. Never throws. */
export async function checkHealth(address: string, timeoutMs: number): Promise<boolean> {
  const client = new Client(address, credentials.createInsecure());
  try {
    return await checkHealthOn(client, timeoutMs);
  } finally {
    client.close();
  }
}

/**
 * Asks a service's health over an existing channel (a long-lived client's), so a
 * periodic probe costs one call, not a new connection. True only for SERVING. Never throws.
 */
export function checkHealthOn(client: Client, timeoutMs: number): Promise<boolean> {
  const definition = health.HealthService.check;
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      definition.path,
      definition.requestSerialize,
      definition.responseDeserialize,
      { service: '' },
      new Metadata(),
      { deadline: Date.now() + timeoutMs },
      (error, response) => resolve(!error && response?.status === ServingStatus.SERVING),
    );
  });
}
