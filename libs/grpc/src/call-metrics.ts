/**
 * Call metrics of every gRPC server and client of the platform, in one shape
 * (the names Prometheus users know from go-grpc-prometheus):
 * - grpc_server_handled_total{grpc_service, grpc_method, grpc_code} and
 *   grpc_server_handling_seconds{grpc_service, grpc_method}: each handler that
 *   createGrpcServer registers reports the status it answered with, access
 *   refusals included;
 * - grpc_client_handled_total and grpc_client_handling_seconds, same labels:
 *   every call of a client createClient makes reports the status it received
 *   (deadlines and transport failures included). A call an
 *   open breaker refused was never sent: circuit_breaker_rejected_calls_total.
 * Labels come from the method path (`/ledger.v1.LedgerService/PlaceHold`), a
 * set the protos bound, and the status code's name.
 */
import { status } from '@grpc/grpc-js';
import { counter, histogram, metricsRegistry, MS_PER_SECOND, Registry } from '@platform/metrics';

type Side = 'server' | 'client';
type CallLabel = 'grpc_service' | 'grpc_method';

const CALL_LABELS = ['grpc_service', 'grpc_method'] as const;
const HANDLED_LABELS = ['grpc_service', 'grpc_method', 'grpc_code'] as const;

/** Both sides' families, written out: deploy-check finds every family by its literal name. */
function families(side: Side, registry: Registry) {
  if (side === 'server') {
    return {
      handled: counter(
        {
          name: 'grpc_server_handled_total',
          help: 'gRPC calls this service answered, by service, method and status code.',
          labelNames: HANDLED_LABELS,
        },
        registry,
      ),
      seconds: histogram(
        {
          name: 'grpc_server_handling_seconds',
          help: 'Time this service took to answer a gRPC call, by service and method.',
          labelNames: CALL_LABELS,
        },
        registry,
      ),
    };
  }
  return {
    handled: counter(
      {
        name: 'grpc_client_handled_total',
        help: 'gRPC calls this service made to others, by service, method and the status code received.',
        labelNames: HANDLED_LABELS,
      },
      registry,
    ),
    seconds: histogram(
      {
        name: 'grpc_client_handling_seconds',
        help: 'Time a gRPC call this service made took, until its status arrived, by service and method.',
        labelNames: CALL_LABELS,
      },
      registry,
    ),
  };
}

/** `/ledger.v1.LedgerService/PlaceHold` → service and method. */
export function callLabels(path: string): Record<CallLabel, string> {
  const [, service = 'unknown', method = 'unknown'] = path.split('/');
  return { grpc_service: service, grpc_method: method };
}

/** `UNAVAILABLE` for 14; the number itself for a code grpc-js does not name. */
export function codeName(code: number): string {
  return status[code] ?? String(code);
}

export interface CallRecorder {
  record(labels: Record<CallLabel, string>, code: number, durationMs: number): void;
}

export function callRecorder(side: Side, registry: Registry = metricsRegistry): CallRecorder {
  const { handled, seconds } = families(side, registry);
  // The handled counter's labels per method and code, made once: codes are a bounded set.
  const handledLabels = new WeakMap<Record<CallLabel, string>, Map<number, Record<string, string>>>();
  const handledLabelsOf = (labels: Record<CallLabel, string>, code: number) => {
    let byCode = handledLabels.get(labels);
    if (byCode === undefined) {
      byCode = new Map();
      handledLabels.set(labels, byCode);
    }
    let known = byCode.get(code);
    if (known === undefined) {
      known = { ...labels, grpc_code: codeName(code) };
      byCode.set(code, known);
    }
    return known;
  };
  return {
    record(labels, code, durationMs) {
      handled.inc(handledLabelsOf(labels, code));
      seconds.observe(labels, durationMs / MS_PER_SECOND);
    },
  };
}

/**
 * The server side: a function that starts timing one call of the method `path`
 * and returns what records it, by the status answered. The server's handler
 * (server.ts) calls it first thing on every call, so the time covers the
 * access check, the handler and the answer, and a refusal is counted too.
 */
export function serverCallTimer(path: string, registry: Registry = metricsRegistry): () => (code: number) => void {
  const recorder = callRecorder('server', registry);
  const labels = callLabels(path);
  return () => {
    const startedAt = performance.now();
    return (code) => recorder.record(labels, code, performance.now() - startedAt);
  };
}

/**
 * The client side: a function that starts timing one call of a method path and
 * returns what records it, by the status the caller received. createClient calls
 * it around each call (no grpc-js interceptor: each interceptor adds a layer of
 * intercepting call, listener and metadata hand-offs to every call).
 */
export function clientCallTimer(registry: Registry = metricsRegistry): (path: string) => (code: number) => void {
  const recorder = callRecorder('client', registry);
  // Method paths come from the protos' service definitions: a bounded set.
  const labelsByPath = new Map<string, Record<CallLabel, string>>();
  return (path) => {
    let labels = labelsByPath.get(path);
    if (labels === undefined) {
      labels = callLabels(path);
      labelsByPath.set(path, labels);
    }
    const known = labels;
    const startedAt = performance.now();
    return (code) => recorder.record(known, code, performance.now() - startedAt);
  };
}
