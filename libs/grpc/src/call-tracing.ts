/**
 * Trace context across every gRPC call of the platform, in the shape of the
 * call metrics beside it: a grpc-js interceptor on every channel createClient
 * opens starts a CLIENT span per call and sends its W3C `traceparent` in the
 * call's metadata; each handler createGrpcServer registers runs in a SERVER
 * span continuing the traceparent received (a new trace when there is none or
 * it is invalid). Log lines written while serving carry the trace's ids.
 * Span names are the method path without its leading slash
 * (`ledger.v1.LedgerService/PlaceHold`); attributes are written only when the
 * span is recorded (an OTLP endpoint is configured and the trace sampled).
 */
import { InterceptingCall, Interceptor, Metadata, sendUnaryData, ServerUnaryCall, status } from '@grpc/grpc-js';
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

/** The client side: a span per call of the channel it is given to, its traceparent sent in the metadata, ended by the status received. */
export function clientTracingInterceptor(): Interceptor {
  return (options, nextCall) => {
    const path = options.method_definition.path;
    const { span, context } = startSpan(spanName(path), { kind: SpanKind.CLIENT });
    return new InterceptingCall(nextCall(options), {
      start(metadata, _listener, next) {
        const traceparent = currentTraceparent(context);
        if (traceparent) metadata.set(TRACEPARENT, traceparent);
        next(metadata, {
          onReceiveStatus(received, nextStatus) {
            finish(span, path, received.code);
            nextStatus(received);
          },
        });
      },
    });
  };
}
