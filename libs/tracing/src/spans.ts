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
 * A traceparent from outside is read by the W3C propagator's own rule (its
 * pattern, version 00 with nothing after the flags): one that is malformed,
 * of version ff or all zeros is ignored, and a new trace starts. It is read
 * and written here rather than through the global propagator: that one only
 * ever is the W3C propagator (tracing.ts), and going through it cost every
 * gRPC call a carrier, a getter and the global registry's look-up on each
 * side, and a second check of ids the parse had just checked.
 */
import {
  Context,
  context,
  Link,
  ROOT_CONTEXT,
  Span,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
} from '@opentelemetry/api';
import { isTracingSuppressed } from '@opentelemetry/core';
import { idsOnlyTracer } from './ids-only-tracer';
import { CheckedSpanContext, isValidSpanContext } from './span-context';

export { SpanKind } from '@opentelemetry/api';
export type { Context, Span } from '@opentelemetry/api';

/** Header and metadata key of the W3C trace context. */
export const TRACEPARENT = 'traceparent';
/** A W3C traceparent is 55 characters; anything much longer is not one. */
export const TRACEPARENT_CHARS_MAX = 64;

const TRACER_NAME = '@platform/tracing';

/** The traceparent version this package writes; the only one whose fields it knows. */
const TRACEPARENT_VERSION = '00';
/**
 * W3C trace context, as @opentelemetry/core's W3CTraceContextPropagator reads it: a version other
 * than ff, a trace id and a span id of lowercase hex and not all zeros, the flags, and for a later
 * version anything after them.
 */
const TRACEPARENT_PATTERN =
  /^\s?((?!ff)[\da-f]{2})-((?![0]{32})[\da-f]{32})-((?![0]{16})[\da-f]{16})-([\da-f]{2})(-.*)?\s?$/;

/** Length of a version 00 traceparent, and where its fields start. */
const TRACEPARENT_V00_CHARS = 55;
const TRACE_ID_AT = 3;
const SPAN_ID_AT = 36;
const FLAGS_AT = 53;
const CHAR_0 = 48;
const CHAR_9 = 57;
const CHAR_A = 97;
const CHAR_F = 102;
const CHAR_DASH = 45;

/** How many of `text[from, to)` are lowercase hex digits other than 0; -1 when one is not a lowercase hex digit. */
function nonZeroHexDigits(text: string, from: number, to: number): number {
  let nonZero = 0;
  for (let index = from; index < to; index += 1) {
    const code = text.charCodeAt(index);
    if (code < CHAR_0 || (code > CHAR_9 && code < CHAR_A) || code > CHAR_F) return -1;
    if (code !== CHAR_0) nonZero += 1;
  }
  return nonZero;
}

/**
 * The span context of a valid version 00 traceparent of exactly 55 characters (what every
 * caller of the platform sends), read by position; null for anything else, which the
 * pattern decides. The pattern alone cost more than the rest of a server span.
 */
function spanContextOfPlainTraceparent(traceparent: string): CheckedSpanContext | null {
  if (
    traceparent.length !== TRACEPARENT_V00_CHARS ||
    !traceparent.startsWith(`${TRACEPARENT_VERSION}-`) ||
    traceparent.charCodeAt(SPAN_ID_AT - 1) !== CHAR_DASH ||
    traceparent.charCodeAt(FLAGS_AT - 1) !== CHAR_DASH ||
    nonZeroHexDigits(traceparent, TRACE_ID_AT, SPAN_ID_AT - 1) < 1 ||
    nonZeroHexDigits(traceparent, SPAN_ID_AT, FLAGS_AT - 1) < 1 ||
    nonZeroHexDigits(traceparent, FLAGS_AT, TRACEPARENT_V00_CHARS) < 0
  ) {
    return null;
  }
  return new CheckedSpanContext(
    traceparent.slice(TRACE_ID_AT, SPAN_ID_AT - 1),
    traceparent.slice(SPAN_ID_AT, FLAGS_AT - 1),
    parseInt(traceparent.slice(FLAGS_AT), 16),
    undefined,
    true,
  );
}

/** The context a received traceparent continues; the root context (a new trace) when it is absent or invalid. */
export function contextFromTraceparent(traceparent: unknown): Context {
  if (typeof traceparent !== 'string' || traceparent.length > TRACEPARENT_CHARS_MAX) return ROOT_CONTEXT;
  const plain = spanContextOfPlainTraceparent(traceparent);
  if (plain !== null) return trace.setSpanContext(ROOT_CONTEXT, plain);
  const match = TRACEPARENT_PATTERN.exec(traceparent);
  if (match === null || (match[1] === TRACEPARENT_VERSION && match[5])) return ROOT_CONTEXT;
  const received = new CheckedSpanContext(match[2], match[3], parseInt(match[4], 16), undefined, true);
  return trace.setSpanContext(ROOT_CONTEXT, received);
}

/** The active span's context as a traceparent, or null outside any span (and where tracing is suppressed). */
export function currentTraceparent(active: Context = context.active()): string | null {
  const spanContext = trace.getSpanContext(active);
  if (spanContext === undefined || isTracingSuppressed(active) || !isValidSpanContext(spanContext)) return null;
  const flags = Number(spanContext.traceFlags || TraceFlags.NONE).toString(16);
  return `${TRACEPARENT_VERSION}-${spanContext.traceId}-${spanContext.spanId}-0${flags}`;
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
function linksTo(contexts: readonly Context[]): Link[] {
  const links: Link[] = [];
  for (const linked of contexts) {
    const spanContext = trace.getSpanContext(linked);
    if (spanContext !== undefined && isValidSpanContext(spanContext)) links.push({ context: spanContext });
  }
  return links;
}

/** Starts a span and the context in which it is active. */
export function startSpan(name: string, options: SpanOptions): { span: Span; context: Context } {
  const parent = options.parent === null ? ROOT_CONTEXT : (options.parent ?? context.active());
  const tracer = trace.getTracer(TRACER_NAME);
  // The links of a batch's span (one per item) are read only by a tracer that records spans:
  // the ids-only tracer drops them, so they are not made for it.
  const links = options.linkedTo === undefined || tracer === idsOnlyTracer ? undefined : linksTo(options.linkedTo);
  const span = tracer.startSpan(name, { kind: options.kind, links }, parent);
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
