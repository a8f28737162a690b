/**
 * Server bootstrap: register async handlers for a ts-proto service definition,
 * each method behind its allow-list and counted (call-metrics.ts), serve
 * grpc.health.v1, listen over mutual TLS, and drain on shutdown. Handlers receive the decoded request and run
 * inside the caller's request context (request id and partner id from metadata,
 * the caller's identity from its certificate), so their logs carry them.
 * Connections live a bounded time (TlsMaterial.connectionAge), so every peer's
 * certificate is checked again at least that often.
 */
import {
  Server,
  ServerCredentials,
  ServerOptions,
  ServerUnaryCall,
  sendUnaryData,
  ServiceDefinition,
  status,
  UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { TLSSocket } from 'node:tls';
import { health } from '@platform/proto';
import { Logger, runWithContext } from '@platform/logger';
import { metricsRegistry, Registry } from '@platform/metrics';
import { withContext } from '@platform/tracing';
import { AccessTable, assertCompleteTable, decideAccess, permissionDenied } from './access';
import { answeredAtOnce } from './answer-at-once';
import { serverCallTimer } from './call-metrics';
import { serverSpans } from './call-tracing';
import { metadataToContext } from './context-metadata';
import { toServiceError } from './errors';
import { HealthState } from './health';
import { identityOfPeer } from './identity';
import type { ConnectionAge, TlsMaterial } from './tls';

/** Bounds on what one server accepts. */
export const GRPC_MESSAGE_BYTES_MAX = 4 * 1024 * 1024;
/** Where a server listens unless configured otherwise: this machine only. */
export const GRPC_HOST_DEFAULT = '127.0.0.1';

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

/** How deep grpc-js nests its intercepting calls above the one holding the HTTP/2 stream, at most. */
const CALL_NESTING_MAX = 8;

/**
 * The TLS connection a call arrived on, through grpc-js's own call objects
 * (the call, then its chain of intercepting calls down to the one holding the
 * HTTP/2 stream); undefined should their shape ever differ.
 */
function tlsSocketOf(call: ServerUnaryCall<unknown, unknown>): TLSSocket | undefined {
  let inner: unknown = (call as { call?: unknown }).call;
  for (let depth = 0; depth < CALL_NESTING_MAX && inner; depth += 1) {
    const socket = (inner as { stream?: { session?: { socket?: unknown } } }).stream?.session?.socket;
    if (socket instanceof TLSSocket) return socket;
    inner = (inner as { nextCall?: unknown }).nextCall;
  }
  return undefined;
}

/**
 * The caller identity of each TLS connection, read from its certificate on
 * the connection's first call. Reading the peer certificate decodes it into a
 * new object every time (a few percent of a service's CPU when done per call),
 * and a connection's peer certificate and verdict are settled by its handshake,
 * before any call: HTTP/2 allows no renegotiation. Forgotten with the connection.
 */
const identityByConnection = new WeakMap<TLSSocket, string | null>();

/** The identity of the caller of a gRPC call: its certificate's, or null without one (plaintext). */
export function callerIdentity(call: ServerUnaryCall<unknown, unknown>): string | null {
  const socket = tlsSocketOf(call);
  const known = socket ? identityByConnection.get(socket) : undefined;
  if (known !== undefined) return known;
  const identity = identityOfPeer(call.getAuthContext()?.sslPeerCertificate);
  if (socket) identityByConnection.set(socket, identity);
  return identity;
}

/** The handler's promise; one that throws before returning one is answered like one that rejects. */
function started<Req, Res>(handler: (request: Req) => Promise<Res>, request: Req): Promise<Res> {
  try {
    return handler(request);
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * One method's handler: counted and timed by the status it answers
 * (call-metrics.ts), run in a SERVER span continuing the caller's trace
 * (call-tracing.ts); refuses callers outside `allowed` (PERMISSION_DENIED,
 * logged), runs the rest in their request context and maps failures to
 * statuses. One function per call does all of it: a wrapper per concern added
 * a callback closure and an argument spread to every call of every service.
 */
export function unaryHandler<Req, Res>(
  method: string,
  handler: (request: Req) => Promise<Res>,
  logger: Logger,
  allowed: readonly string[],
  registry: Registry = metricsRegistry,
) {
  const startTimer = serverCallTimer(method, registry);
  const startSpan = serverSpans(method);
  return (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>) => {
    const recordCall = startTimer();
    const span = startSpan(call.metadata);
    const answer: sendUnaryData<Res> = (error, ...rest) => {
      const code = error ? (error.code ?? status.UNKNOWN) : status.OK;
      span.end(code);
      recordCall(code);
      callback(error, ...rest);
    };
    withContext(span.context, () => {
      const context = metadataToContext(call.metadata);
      const decision = decideAccess(allowed, callerIdentity(call as ServerUnaryCall<unknown, unknown>));
      if (!decision.allowed) {
        answer(permissionDenied(logger, method, decision.caller, context.requestId));
        return;
      }
      // runWithContext copies what it is given: this call's own object is handed over as it is.
      context.caller = decision.caller ?? undefined;
      runWithContext(context, () => {
        started(handler, call.request).then(
          (response) => answer(null, response),
          (error: unknown) => answer(toServiceError(error, logger, method)),
        );
      });
    });
  };
}

export interface GrpcServer {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- message types differ per method (and sit in contravariant positions): only the shape is constrained
  add<D extends Record<string, UnaryMethodDefinition<any, any>>>(
    definition: D,
    implementation: AsyncImplementation<D>,
    access: AccessTable<D>,
  ): void;
  health: HealthState;
  /** Listens over mutual TLS; resolves to the bound port. */
  listen(port: number, host?: string): Promise<number>;
  /**
   * A second, plaintext listener serving grpc.health.v1 only (nothing else is
   * registered on it): for probes that cannot present a certificate, such as
   * the kubelet's gRPC probes.
   */
  listenHealth(port: number, host?: string): Promise<number>;
  /** Stops accepting calls, lets in-flight calls finish within graceMs, then forces. */
  shutdown(graceMs: number): Promise<void>;
}

function bind(server: Server, address: string, credentials: ServerCredentials): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(address, credentials, (error, boundPort) => {
      if (error) reject(error);
      else resolve(boundPort);
    });
  });
}

function drain(server: Server, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, graceMs);
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function serviceNameOf(definition: Record<string, { path: string }>): string {
  const [first] = Object.values(definition);
  return first ? first.path.split('/')[1] : '(empty service)';
}

/** Options of every server: the health-only listener's, and with a connection age the main one's. */
export function serverOptions(connectionAge?: ConnectionAge): ServerOptions {
  return {
    'grpc.max_receive_message_length': GRPC_MESSAGE_BYTES_MAX,
    'grpc.max_send_message_length': GRPC_MESSAGE_BYTES_MAX,
    // Channelz stays on for servers although no process serves it: grpc-js's server records its
    // open connections only in its channelz session handler, and `forceShutdown()` (the end of a
    // drain's grace) cancels the calls still open by walking that record. With channelz off it
    // would find none, and a caller would wait for its deadline instead of hearing CANCELLED.
    // Clients keep it off (channel.ts): their per-call bookkeeping is where it costs.
    // No answer compression (`grpc.default_compression_algorithm` unset): page answers are serialised
    // into a reused buffer that grpc-js copies at once only when it does not compress (page-answer.ts).
    // A peer's certificate is checked when it connects: closing connections past a bounded age makes
    // every peer handshake again, so an expired or no longer trusted identity stops being served.
    ...(connectionAge
      ? {
          'grpc.max_connection_age_ms': connectionAge.maxMs,
          'grpc.max_connection_age_grace_ms': connectionAge.graceMs,
        }
      : {}),
  };
}

export function createGrpcServer(logger: Logger, tls: TlsMaterial): GrpcServer {
  const server = new Server(serverOptions(tls.connectionAge));
  const healthState = new HealthState();
  const healthService = health.HealthService as unknown as ServiceDefinition;
  // Health tells only SERVING or not: any caller holding a certificate of the platform's CA may ask.
  server.addService(healthService, healthState.implementation() as unknown as UntypedServiceImplementation);
  let healthServer: Server | null = null;

  return {
    health: healthState,
    add(definition, implementation, access) {
      assertCompleteTable(
        serviceNameOf(definition),
        Object.keys(definition),
        access as Record<string, readonly string[]>,
      );
      const handlers: UntypedServiceImplementation = {};
      for (const [name, method] of Object.entries(definition)) {
        const handler = implementation[name as keyof typeof implementation] as (request: unknown) => Promise<unknown>;
        handlers[name] = answeredAtOnce(
          unaryHandler(method.path, handler, logger, access[name as keyof typeof access]),
        );
      }
      server.addService(definition as unknown as ServiceDefinition, handlers);
    },
    listen(port, host = GRPC_HOST_DEFAULT) {
      return bind(server, `${host}:${port}`, tls.serverCredentials());
    },
    async listenHealth(port, host = GRPC_HOST_DEFAULT) {
      healthServer = new Server(serverOptions());
      healthServer.addService(healthService, healthState.implementation() as unknown as UntypedServiceImplementation);
      return bind(healthServer, `${host}:${port}`, ServerCredentials.createInsecure());
    },
    async shutdown(graceMs) {
      healthState.setServing(false);
      healthState.endWatches();
      await Promise.all([drain(server, graceMs), healthServer ? drain(healthServer, graceMs) : Promise.resolve()]);
    },
  };
}
