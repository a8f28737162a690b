/**
 * Server bootstrap: register async handlers for a ts-proto service definition,
 * serve grpc.health.v1, listen, and drain on shutdown. Handlers receive the
 * decoded request and run inside the caller's request context (request id and
 * partner id from metadata), so their logs carry both.
 */
import { Server, ServerCredentials, ServerUnaryCall, sendUnaryData, ServiceDefinition, UntypedServiceImplementation } from '@grpc/grpc-js';
import { health } from '@platform/proto';
import { Logger, runWithContext } from '@platform/logger';
import { metadataToContext } from './context-metadata';
import { toServiceError } from './errors';
import { HealthState } from './health';

/** Bounds on what one server accepts. */
export const GRPC_MESSAGE_BYTES_MAX = 4 * 1024 * 1024;

interface UnaryMethodDefinition<Req, Res> {
  path: string;
  requestStream: false;
  responseStream: false;
  requestDeserialize: (buffer: Buffer) => Req;
  responseSerialize: (value: Res) => Buffer;
}

type RequestOf<M> = M extends { requestDeserialize: (buffer: Buffer) => infer Req } ? Req : never;
type ResponseOf<M> = M extends { responseSerialize: (value: infer Res) => Buffer } ? Res : never;

/** The async implementation of every method of a ts-proto service definition. */
export type AsyncImplementation<D> = {
  [K in keyof D]: (request: RequestOf<D[K]>) => Promise<ResponseOf<D[K]>>;
};

export function unaryHandler<Req, Res>(method: string, handler: (request: Req) => Promise<Res>, logger: Logger) {
  return (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>) => {
    runWithContext(metadataToContext(call.metadata), () => {
      handler(call.request).then(
        (response) => callback(null, response),
        (error: unknown) => callback(toServiceError(error, logger, method)),
      );
    });
  };
}

export interface GrpcServer {
  add<D extends Record<string, UnaryMethodDefinition<any, any>>>(definition: D, implementation: AsyncImplementation<D>): void;
  health: HealthState;
  listen(port: number, host?: string): Promise<number>;
  /** Stops accepting calls, lets in-flight calls finish within graceMs, then forces. */
  shutdown(graceMs: number): Promise<void>;
}

export function createGrpcServer(logger: Logger): GrpcServer {
  const server = new Server({
    'grpc.max_receive_message_length': GRPC_MESSAGE_BYTES_MAX,
    'grpc.max_send_message_length': GRPC_MESSAGE_BYTES_MAX,
  });
  const healthState = new HealthState();
  server.addService(health.HealthService as unknown as ServiceDefinition, healthState.implementation() as unknown as UntypedServiceImplementation);

  return {
    health: healthState,
    add(definition, implementation) {
      const handlers: UntypedServiceImplementation = {};
      for (const [name, method] of Object.entries(definition)) {
        const handler = implementation[name as keyof typeof implementation] as (request: unknown) => Promise<unknown>;
        handlers[name] = unaryHandler(method.path, handler, logger);
      }
      server.addService(definition as unknown as ServiceDefinition, handlers);
    },
    listen(port, host = '0.0.0.0') {
      return new Promise((resolve, reject) => {
        server.bindAsync(`${host}:${port}`, ServerCredentials.createInsecure(), (error, boundPort) => {
          if (error) reject(error);
          else resolve(boundPort);
        });
      });
    },
    async shutdown(graceMs) {
      healthState.setServing(false);
      healthState.endWatches();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}
