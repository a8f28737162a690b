/**
 * grpc.health.v1, served by every service. Kubernetes' native gRPC probes and
 * our start-up scripts call Check; a service reports SERVING only once its
 * dependencies are connected, and NOT_SERVING as soon as it starts draining.
 */
import {
  credentials,
  Client,
  Metadata,
  ServerWritableStream,
  ServerUnaryCall,
  sendUnaryData,
  status,
} from '@grpc/grpc-js';
import { health } from '@platform/proto';
import type { ClientTls } from './tls';
import { unaryCall } from './unary-call';

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
      check: (
        _call: ServerUnaryCall<health.HealthCheckRequest, health.HealthCheckResponse>,
        callback: sendUnaryData<health.HealthCheckResponse>,
      ) => callback(null, { status: this.status() }),
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

/**
 * Told of a call about to start, with the metadata it will send (to add to);
 * returns what is told the status the call ended with.
 */
export type CallObserver = (path: string, metadata: Metadata) => (code: number) => void;

/** Asks grpc.health.v1 Check over an existing channel; true only for SERVING. Never throws. */
export function askHealth(client: Client, timeoutMs: number, observe?: CallObserver): Promise<boolean> {
  const definition = health.HealthService.check;
  const metadata = new Metadata();
  const ended = observe?.(definition.path, metadata);
  return new Promise((resolve) => {
    unaryCall(client.getChannel(), definition, { service: '' }, metadata, Date.now() + timeoutMs, (error, response) => {
      ended?.(error ? error.code : status.OK);
      resolve(!error && response?.status === ServingStatus.SERVING);
    });
  });
}

/**
 * Asks a service's health once on a fresh channel, closed afterwards; true only
 * for SERVING. Never throws. Over mutual TLS when `tls` is given (the service's
 * main port), in plaintext otherwise (a health-only port).
 */
export function checkHealth(address: string, timeoutMs: number, tls?: ClientTls): Promise<boolean> {
  const client = new Client(
    address,
    tls ? tls.credentials : credentials.createInsecure(),
    tls ? { 'grpc.ssl_target_name_override': tls.serverIdentity } : {},
  );
  return askHealth(client, timeoutMs).finally(() => client.close());
}
