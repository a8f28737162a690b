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
import { Metadata, sendUnaryData, ServerUnaryCall, status } from '@grpc/grpc-js';
import {
  contextFromTraceparent,
  currentTraceparent,
  endSpan,
  Span,
  SpanKind,
  startSpan,
  TRACEPARENT,
  withContext,
} from '@platform/tracing';
import { callLabels, codeName } from './call-metrics';

type UnaryHandler<Req, Res> = (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>) => void;

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

/** Wraps a registered handler so that it runs in a span continuing the caller's trace, ended with the status it answers. */
export function tracedHandler<Req, Res>(path: string, handler: UnaryHandler<Req, Res>): UnaryHandler<Req, Res> {
  const name = spanName(path);
  return (call, callback) => {
    const { span, context } = startSpan(name, {
      kind: SpanKind.SERVER,
      parent: contextFromTraceparent(traceparentOf(call.metadata)),
    });
    withContext(context, () =>
      handler(call, (error, ...rest) => {
        finish(span, path, error ? (error.code ?? status.UNKNOWN) : status.OK);
        callback(error, ...rest);
      }),
    );
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
