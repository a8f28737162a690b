/**
 * Promise clients for ts-proto service definitions. Each client spreads its
 * calls over every replica of its upstream and retries the calls safe to
 * repeat on another one (channel.ts). Every channel is mutual
 * TLS: the client presents its process's certificate and accepts only a server
 * certificate naming the service it means to reach. Channels stay open between
 * calls (one handshake per connection, not per call). Every call carries a
 * deadline and the current request context, and goes through one opossum
 * circuit breaker per upstream: transport failures trip it, refusals
 * (AppErrors from a healthy service) do not. Whatever fails comes back as an
 * AppError (the refusal, or SERVICE_UNAVAILABLE), so callers never see raw
 * transport errors. Every call is counted and timed by status (call-metrics.ts),
 * and the breaker reports its state per upstream (@platform/metrics).
 * Calls are made straight on the channel (unary-call.ts), beneath grpc-js's
 * Client layers. `reachable()` tells a worker, without a call, whether calls would get
 * through now (channel not failing to connect, breaker not open), so it can
 * leave shared work to replicas that can reach the upstream.
 */
import { Client, connectivityState, status } from '@grpc/grpc-js';
import CircuitBreaker from 'opossum';
import type { Logger } from '@platform/logger';
import { observeBreaker } from '@platform/metrics';
import { clientCallTimer } from './call-metrics';
import { startClientSpan } from './call-tracing';
import { channelOptions, channelTarget } from './channel';
import { contextToMetadata } from './context-metadata';
import { fromClientError, isRefusal } from './errors';
import { askHealth, CallObserver } from './health';
import type { ClientTls } from './tls';
import { unaryCall, UnaryMethod } from './unary-call';

export const CALL_DEADLINE_MS_DEFAULT = 5_000;
/**
 * How long an open breaker refuses calls before one probe goes through. Short:
 * an upstream that restarted is used again within about a second of being ready
 * (a breaker that opened just as it came back would otherwise refuse every call
 * for as long as this lasts), and one probe a second costs a dead upstream nothing.
 */
export const BREAKER_RESET_MS_DEFAULT = 1_000;

export interface ClientOptions {
  /** Name of the upstream for logs and breaker events, e.g. "ledger". */
  upstream: string;
  /** Every replica of the upstream: host:port, a comma-separated IPv4 list, or dns:///<headless Service>:port (channel.ts). */
  address: string;
  logger: Logger;
  deadlineMs?: number;
  /** Breaker: percentage of failing calls in the window that opens it. */
  errorThresholdPercentage?: number;
  /** Breaker: how long it stays open before letting one call probe. */
  resetTimeoutMs?: number;
  /** Breaker: calls in the window before it may open. */
  volumeThreshold?: number;
  /** The process's credentials towards this upstream (TlsMaterial.client(<upstream identity>)). */
  tls: ClientTls;
}

type RequestOf<M> = M extends { requestSerialize: (value: infer Req) => Buffer } ? Req : never;
type ResponseOf<M> = M extends { responseDeserialize: (buffer: Buffer) => infer Res } ? Res : never;

export interface CallOptions {
  deadlineMs?: number;
}

export type PromiseClient<D> = {
  [K in keyof D]: (request: RequestOf<D[K]>, options?: CallOptions) => Promise<ResponseOf<D[K]>>;
} & {
  close(): void;
  breaker: CircuitBreaker;
  /** Asks the upstream's grpc.health.v1 over this client's channel; true only for SERVING. Never throws. */
  serving(timeoutMs: number): Promise<boolean>;
  /**
   * False while calls would fail at once: every connection of the channel failing
   * (TRANSIENT_FAILURE), the channel closed, or the breaker open. No network round
   * trip; an idle channel is asked to connect, and counts as reachable.
   */
  reachable(): boolean;
};

/** Channel states in which a call cannot get through now. */
const UNREACHABLE_STATES = new Set([connectivityState.TRANSIENT_FAILURE, connectivityState.SHUTDOWN]);

/**
 * The readiness gate of work that calls `clients`: open while every one of them
 * looks reachable (PromiseClient.reachable). One that cannot tell (an adapter
 * without a channel, a fake) counts as reachable; its failures still give a
 * worker's claim back.
 */
export function allReachable(...clients: object[]): () => boolean {
  return () =>
    clients.every((client) => (client as Partial<Pick<PromiseClient<object>, 'reachable'>>).reachable?.() ?? true);
}

/** reachable() of a client: its breaker lets calls through and its channel is not failing to connect. */
export function isReachable(client: Client, breaker: Pick<CircuitBreaker, 'opened'>): boolean {
  if (breaker.opened) return false;
  return !UNREACHABLE_STATES.has(client.getChannel().getConnectivityState(true));
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- message types differ per method (and sit in contravariant positions): only the shape is constrained
export function createClient<D extends Record<string, UnaryMethod<any, any>>>(
  definition: D,
  options: ClientOptions,
): PromiseClient<D> {
  const client = new Client(
    channelTarget(options.address),
    options.tls.credentials,
    channelOptions(options.tls.serverIdentity),
  );
  const timeCall = clientCallTimer();
  const breaker = new CircuitBreaker((call: () => Promise<unknown>) => call(), {
    name: options.upstream,
    timeout: false, // the gRPC deadline bounds each call
    errorThresholdPercentage: options.errorThresholdPercentage ?? 50,
    resetTimeout: options.resetTimeoutMs ?? BREAKER_RESET_MS_DEFAULT,
    volumeThreshold: options.volumeThreshold ?? 10,
    errorFilter: (error: unknown) => isRefusal(error),
    // Only counts decide the breaker. Left on, opossum once a second concatenates and sorts the
    // last 10 s of call latencies (thousands a second on a busy gateway) for percentiles and a
    // snapshot nobody reads: calls are timed by grpc_client_handling_seconds.
    rollingPercentilesEnabled: false,
    enableSnapshots: false,
  });
  breaker.on('open', () => options.logger.warn('circuit breaker opened', { upstream: options.upstream }));
  breaker.on('halfOpen', () => options.logger.info('circuit breaker half-open', { upstream: options.upstream }));
  breaker.on('close', () => options.logger.info('circuit breaker closed', { upstream: options.upstream }));
  observeBreaker(breaker, options.upstream);

  // Each call is timed, counted and traced by the status it ends with, around the call itself rather
  // than in grpc-js interceptors (a layer of intercepting call per interceptor, on every call).
  const observe: CallObserver = (path, metadata) => {
    const recordCall = timeCall(path);
    const endSpan = startClientSpan(path, metadata);
    return (code) => {
      recordCall(code);
      endSpan(code);
    };
  };

  const channel = client.getChannel();
  const call = <Req, Res>(method: UnaryMethod<Req, Res>, request: Req, callOptions: CallOptions = {}) =>
    new Promise<Res>((resolve, reject) => {
      const deadline = Date.now() + (callOptions.deadlineMs ?? options.deadlineMs ?? CALL_DEADLINE_MS_DEFAULT);
      const metadata = contextToMetadata();
      const ended = observe(method.path, metadata);
      unaryCall(channel, method, request, metadata, deadline, (error, response) => {
        ended(error ? error.code : status.OK);
        if (error) reject(error);
        else resolve(response as Res);
      });
    });

  const promiseClient: Record<string, unknown> = {
    close: () => {
      breaker.shutdown();
      client.close();
    },
    breaker,
    serving: (timeoutMs: number) => askHealth(client, timeoutMs, observe),
    reachable: () => isReachable(client, breaker),
  };
  for (const [name, method] of Object.entries(definition)) {
    promiseClient[name] = async (request: unknown, callOptions?: CallOptions) => {
      try {
        return await breaker.fire(() => call(method, request, callOptions));
      } catch (error) {
        throw fromClientError(error);
      }
    };
  }
  return promiseClient as PromiseClient<D>;
}
