export {
  startTracing,
  EXPORT_BATCH_SPANS_MAX,
  EXPORT_DELAY_MS,
  EXPORT_QUEUE_SPANS_MAX,
  EXPORT_TIMEOUT_MS,
} from './tracing';
export type { Tracing, TracingOptions } from './tracing';
export {
  activeContext,
  contextFromTraceparent,
  currentTraceparent,
  endSpan,
  inSpan,
  SpanKind,
  startSpan,
  withContext,
  TRACEPARENT,
  TRACEPARENT_CHARS_MAX,
} from './spans';
export type { Context, Span, SpanOptions } from './spans';
