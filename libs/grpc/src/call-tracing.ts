/**
 * Trace context across every gRPC call of the platform, in the shape of the
 * call metrics beside it: every call of a client createClient makes starts a
 * CLIENT span and sends its W3C `traceparent` in the call's metadata; each handler createGrpcServer registers runs in a SERVER
 * span continuing the traceparent received (a new trace when there is none or
 * it is invalid). Log lines written while serving carry the trace's ids.
 * Span names are the method path without its leading slash
 * (`ledger.v1.LedgerService/PlaceHold`); attributes are written only when the
 * span is recorded (an OTLP endpoint is configured and the trace sampled).
 */
import { Metadata, status } from '@grpc/grpc-js';
import {
  Context,
  contextFromTraceparent,
  currentTraceparent,
  endSpan,
  Span,
  SpanKind,
  startSpan,
  TRACEPARENT,
} from '@platform/tracing';
import { callLabels, codeName } from './call-metrics';

function spanName(path: string): string {
  return path.startsWith('/') ? path.slice(1) : path;
}

function finish(span: Span, path: string, code: number): void {
  if (span.isRecording()) {
    const { grpc_service: service, grpc_method: method } = callLabels(path);
    span.setAttributes({
      'rpc.system': 'grpc',
      'rpc.service': service,
      'rpc.method': method,
      'rpc.grpc.status_code': code,
    });
  }
  endSpan(span, code === status.OK ? undefined : codeName(code));
}

/** The traceparent a caller sent, if any. */
export function traceparentOf(metadata: Metadata): string | undefined {
  const [value] = metadata.get(TRACEPARENT);
  return typeof value === 'string' ? value : undefined;
}

/** A SERVER span of one call and the context it is active in. */
export interface ServerSpan {
  context: Context;
  /** Ends the span with the status answered. */
  end(code: number): void;
}

/**
 * For the method `path`: what starts the SERVER span of one of its calls, continuing
 * the traceparent in the caller's metadata (a new trace without a valid one).
 */
export function serverSpans(path: string): (metadata: Metadata) => ServerSpan {
  const name = spanName(path);
  return (metadata) => {
    const { span, context } = startSpan(name, {
      kind: SpanKind.SERVER,
      parent: contextFromTraceparent(traceparentOf(metadata)),
    });
    return { context, end: (code) => finish(span, path, code) };
  };
}

/**
 * The client side of one call: starts a CLIENT span (a child of the active
 * context), sends its traceparent in `metadata`, and returns what ends the span
 * with the status the caller received.
 */
export function startClientSpan(path: string, metadata: Metadata): (code: number) => void {
  const { span, context } = startSpan(spanName(path), { kind: SpanKind.CLIENT });
  const traceparent = currentTraceparent(context);
  if (traceparent) metadata.set(TRACEPARENT, traceparent);
  return (code) => finish(span, path, code);
}
