/**
 * Span contexts whose ids were made or checked by this package. Every span of
 * a process that exports nothing starts from its parent's span context and
 * every gRPC call writes one as a traceparent; OpenTelemetry checks both ids
 * character by character each time (a few percent of a gRPC server's CPU per
 * call). A span context of this class was checked once, when it was made, so
 * later checks of it cost an `instanceof`. Any other span context (the SDK's,
 * one a caller wrapped itself) is checked as before.
 */
import { isSpanContextValid, SpanContext, TraceState } from '@opentelemetry/api';

export class CheckedSpanContext implements SpanContext {
  constructor(
    readonly traceId: string,
    readonly spanId: string,
    readonly traceFlags: number,
    readonly traceState: TraceState | undefined,
    readonly isRemote: boolean,
  ) {}
}

/** OpenTelemetry's `isSpanContextValid`, skipped for the span contexts this package checked when it made them. */
export function isValidSpanContext(spanContext: SpanContext): boolean {
  return spanContext instanceof CheckedSpanContext || isSpanContextValid(spanContext);
}
