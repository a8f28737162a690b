/**
 * How every client channel finds and uses an upstream's replicas.
 *
 * The address names all replicas, and the channel keeps one connection to each
 * and sends each call to the next ready one (`round_robin`), so load spreads
 * per call, a new replica gets traffic as soon as it is known and a departed
 * one stops getting it when its connection closes. Three forms:
 *
 * - `dns:///trading-headless:7001` (Kubernetes): a headless Service, whose DNS
 *   name resolves to every ready pod. Resolved again whenever a connection
 *   drops, at most once a second, so a rolling restart's new pods are found.
 * - `127.0.0.1:7001,127.0.0.1:7011` (the local stack): a fixed list of IPv4
 *   addresses, one per replica.
 * - `trading:7001`: one name (docker compose); every address it resolves to.
 *
 * The TLS server name does not come from the address: the client sends the
 * upstream's identity (`grpc.ssl_target_name_override`) and accepts only a
 * certificate naming it (tls.ts), whichever replica or address answers.
 */
import type { ChannelOptions } from '@grpc/grpc-js';
import { RETRYABLE_METHODS } from './retryable-methods';

/**
 * Reconnect backoff of every connection to a replica. gRPC's default grows to
 * two minutes while a replica is away; capped at 800 ms (960 ms with grpc-js's
 * 20 % jitter), a replica that is ready again is connected to, and so used,
 * within a second.
 */
export const RECONNECT_BACKOFF_INITIAL_MS = 100;
export const RECONNECT_BACKOFF_MAX_MS = 800;
/** Pings on an idle connection find a replica that vanished without closing it (a node lost) before a call does. */
export const KEEPALIVE_TIME_MS = 30_000;
export const KEEPALIVE_TIMEOUT_MS = 10_000;
/** DNS is asked again when a replica's connection drops, but not more often than this. */
export const DNS_RESOLUTION_INTERVAL_MS_MIN = 1_000;
/** One call in all: the first attempt and two more, each on the next ready replica. */
export const RETRY_ATTEMPTS_MAX = 3;
/**
 * How much answer data a connection takes in before its sender must wait for a
 * window update, per call and for the connection. HTTP/2's default, 64 KiB for
 * the whole connection, made every answer larger than a few KiB (a page of 100
 * events or statement lines is 25–40 KiB) cross in pieces, each waiting for the
 * client's update: measured on two grpc-js processes over TLS, 8 calls at once,
 * a 36 KB answer cost the client 2.7–3.2 ms and the server 2.0–2.3 ms of CPU
 * with it, 1.8–1.9 and 1.0 with this window, against 1.4–1.5 and 0.8 for a
 * 400-byte answer. Bounded: each message is at most 4 MiB anyway.
 */
export const FLOW_CONTROL_WINDOW_BYTES = 1024 * 1024;

const IPV4_ADDRESS = /^(?:\d{1,3}\.){3}\d{1,3}:\d{1,5}$/;
const HOST_PORT = /^[A-Za-z0-9.-]+:\d{1,5}$/;
const DNS_TARGET = /^dns:\/\/\/[A-Za-z0-9.-]+:\d{1,5}$/;

/** The grpc-js target for an address in one of the three forms; RangeError for anything else. */
export function channelTarget(address: string): string {
  if (DNS_TARGET.test(address)) return address;
  const parts = address.split(',');
  if (parts.length > 1) {
    if (!parts.every((part) => IPV4_ADDRESS.test(part))) {
      throw new RangeError(
        `a list of replica addresses holds IPv4 host:port entries only, not ${JSON.stringify(address)}`,
      );
    }
    return `ipv4:${parts.join(',')}`;
  }
  if (HOST_PORT.test(address)) return address;
  throw new RangeError(
    `not a gRPC address (host:port, a comma-separated IPv4 list, or dns:///host:port): ${JSON.stringify(address)}`,
  );
}

/** `/ledger.v1.Ledger/GetBalances` → { service: 'ledger.v1.Ledger', method: 'GetBalances' }. */
function methodName(path: string): { service: string; method: string } {
  const [, service, method] = path.split('/');
  return { service, method };
}

/**
 * The service config of every channel: round_robin across replicas, and
 * UNAVAILABLE retried on another replica for the calls in RETRYABLE_METHODS.
 * The call's deadline bounds all its attempts together.
 */
export function serviceConfig(): object {
  return {
    loadBalancingConfig: [{ round_robin: {} }],
    methodConfig: [
      {
        name: Object.keys(RETRYABLE_METHODS).map(methodName),
        retryPolicy: {
          maxAttempts: RETRY_ATTEMPTS_MAX,
          initialBackoff: '0.05s',
          maxBackoff: '0.2s',
          backoffMultiplier: 2,
          retryableStatusCodes: ['UNAVAILABLE'],
        },
      },
    ],
  };
}

const SERVICE_CONFIG_JSON = JSON.stringify(serviceConfig());

/** Channel options of a client towards the service whose identity is `serverIdentity`. */
export function channelOptions(serverIdentity: string): ChannelOptions {
  return {
    'grpc.service_config': SERVICE_CONFIG_JSON,
    // The service config is ours: a DNS TXT record must not replace it.
    'grpc.service_config_disable_resolution': 1,
    'grpc.keepalive_time_ms': KEEPALIVE_TIME_MS,
    'grpc.keepalive_timeout_ms': KEEPALIVE_TIMEOUT_MS,
    'grpc.initial_reconnect_backoff_ms': RECONNECT_BACKOFF_INITIAL_MS,
    'grpc.max_reconnect_backoff_ms': RECONNECT_BACKOFF_MAX_MS,
    'grpc.dns_min_time_between_resolutions_ms': DNS_RESOLUTION_INTERVAL_MS_MIN,
    'grpc-node.flow_control_window': FLOW_CONTROL_WINDOW_BYTES,
    // Channelz (grpc-js's introspection service) is served by no process of the platform, yet
    // grpc-js counts every call, message and stream for it when on, as it is by default.
    'grpc.enable_channelz': 0,
    // The TLS server name: the identity expected, never an IP address.
    'grpc.ssl_target_name_override': serverIdentity,
  };
}
