/**
 * The few span operations the platform needs, in one place: start a span as
 * the child of the active one or of a traceparent received from elsewhere,
 * run work inside it, end it with the outcome, and write the active span's
 * context as a W3C `traceparent` for the next hop (gRPC metadata, an outbox
 * row, an AMQP header, a stored delivery).
 *
 * A span may start a new trace (no parent) and link to the spans it works for
 * (a batch sent for several requests, each in its own trace).
 *
 * A traceparent from outside is parsed by the W3C propagator: one that is
 * malformed, of an unknown version or all zeros is ignored, and a new trace starts.
 */
import {
  Context,
  context,
  Link,
  propagation,
  ROOT_CONTEXT,
  Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';

export { SpanKind } from '@opentelemetry/api';
export type { Context, Span } from '@opentelemetry/api';

/** Header and metadata key of the W3C trace context. */
export const TRACEPARENT = 'traceparent';
/** A W3C traceparent is 55 characters; anything much longer is not one. */
export const TRACEPARENT_CHARS_MAX = 64;

const TRACER_NAME = '@platform/tracing';

type Carrier = Record<string, string | undefined>;

const getter = {
  keys: (carrier: Carrier) => Object.keys(carrier),
  get: (carrier: Carrier, key: string) => carrier[key],
};

/** The context a received traceparent continues; the root context (a new trace) when it is absent or invalid. */
export function contextFromTraceparent(traceparent: unknown): Context {
  if (typeof traceparent !== 'string' || traceparent.length > TRACEPARENT_CHARS_MAX) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, { [TRACEPARENT]: traceparent }, getter);
}

/** The active span's context as a traceparent, or null outside any span. */
export function currentTraceparent(active: Context = context.active()): string | null {
  const carrier: Carrier = {};
  propagation.inject(active, carrier);
  return carrier[TRACEPARENT] ?? null;
}

export interface SpanOptions {
  kind: SpanKind;
  /** The parent; the active context when omitted; null for none (the span starts a new trace). */
  parent?: Context | null;
  /**
   * Contexts whose spans this one works for without being their child (a batch
   * sent for several requests): linked to when the span is recorded.
   */
  linkedTo?: readonly Context[];
}

/** The active context (to link to it later, from a span started elsewhere). */
export function activeContext(): Context {
  return context.active();
}

/** The valid span contexts of `contexts`, as span links. */
function linksTo(contexts: readonly Context[] | undefined): Link[] | undefined {
  if (!contexts) return undefined;
  return contexts.flatMap((linked) => {
    const spanContext = trace.getSpanContext(linked);
    return spanContext && trace.isSpanContextValid(spanContext) ? [{ context: spanContext }] : [];
  });
}

/** Starts a span and the context in which it is active. */
export function startSpan(name: string, options: SpanOptions): { span: Span; context: Context } {
  const parent = options.parent === null ? ROOT_CONTEXT : (options.parent ?? context.active());
  const span = trace
    .getTracer(TRACER_NAME)
    .startSpan(name, { kind: options.kind, links: linksTo(options.linkedTo) }, parent);
  return { span, context: trace.setSpan(parent, span) };
}

/** Ends a span, as failed when `error` is given. */
export function endSpan(span: Span, error?: unknown): void {
  if (error !== undefined && error !== null && span.isRecording()) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
  }
  span.end();
}

/** Runs `fn` inside a new span, ended when its promise settles (as failed when it rejects). */
export async function inSpan<T>(name: string, options: SpanOptions, fn: () => Promise<T>): Promise<T> {
  const { span, context: spanContext } = startSpan(name, options);
  try {
    const result = await context.with(spanContext, fn);
    endSpan(span);
    return result;
  } catch (error) {
    endSpan(span, error);
    throw error;
  }
}

/** Runs `fn` with `active` as the active context (a received trace continued without a span of its own). */
export function withContext<T>(active: Context, fn: () => T): T {
  return context.with(active, fn);
}
