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

/** Asks a service's health once; true only for SERVING. Never throws. */
export function checkHealth(address: string, timeoutMs: number): Promise<boolean> {
  const client = new Client(address, credentials.createInsecure());
  const definition = health.HealthService.check;
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      definition.path,
      definition.requestSerialize,
      definition.responseDeserialize,
      { service: '' },
      new Metadata(),
      { deadline: Date.now() + timeoutMs },
      (error, response) => {
        client.close();
        resolve(!error && response?.status === ServingStatus.SERVING);
      },
    );
  });
}
