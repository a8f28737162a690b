/**
 * One tracer provider per process, started first thing by each service's
 * entry point. Every partner request, gRPC call and event delivery runs in a
 * span, so its W3C trace context (trace id, span id) reaches the next service
 * and every log line written on its behalf.
 *
 * Two modes, chosen by configuration:
 * - no OTLP endpoint (the default, and local stacks): spans are never
 *   recorded. A span is only its ids (ids-only-tracer.ts, what the SDK makes
 *   of an unsampled span, cheaper): no attributes kept, no processor, nothing
 *   exported. The context still propagates and log lines still carry the ids,
 *   at the cost of random ids and one async-context switch per span.
 * - an OTLP endpoint: spans of sampled traces are batched and exported over
 *   OTLP/HTTP (`<endpoint>/v1/traces`). A trace the caller marked sampled is
 *   sampled here too; a new trace is sampled with probability `sampleRatio`.
 *   The standard instrumentations (instrumentations.ts: a span per PostgreSQL
 *   query, Redis command and outgoing HTTP request inside a trace) are on in
 *   this mode only; they are registered before this runs, by `instrument.ts`
 *   on the first line of each entry point, and their spans reach this provider
 *   through the global one.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  ParentBasedSampler,
  SpanExporter,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { idsOnlyTracerProvider } from './ids-only-tracer';

/** Spans waiting for export, at most; beyond it new spans are dropped rather than memory growing. */
export const EXPORT_QUEUE_SPANS_MAX = 2_048;
/** Spans sent per export request, at most. */
export const EXPORT_BATCH_SPANS_MAX = 512;
/** How long spans wait before a batch goes out. */
export const EXPORT_DELAY_MS = 2_000;
/** One export request's bound; a collector slower than this loses that batch, never the service's time. */
export const EXPORT_TIMEOUT_MS = 10_000;
/** The OTLP/HTTP path of traces under the endpoint's base URL (as the OpenTelemetry SDKs append it). */
const OTLP_TRACES_PATH = '/v1/traces';

export interface TracingOptions {
  /** The service's name (`service.name` of its spans). */
  service: string;
  /** OTLP/HTTP base URL (e.g. http://otel-collector:4318); spans are neither recorded nor exported without it. */
  otlpEndpoint?: string;
  /** Share of new traces recorded when exporting, 0..1; a caller's sampled flag is followed whatever it is. */
  sampleRatio?: number;
  /** Replaces the OTLP exporter (tests). */
  exporter?: SpanExporter;
}

export interface Tracing {
  /** True when spans are recorded and exported. */
  readonly exporting: boolean;
  /** Exports what is queued (bounded by EXPORT_TIMEOUT_MS) and stops. */
  shutdown(): Promise<void>;
}

let started: Tracing | null = null;

/** Registers the global tracer provider, context manager and W3C propagator. Idempotent: a second call returns the first. */
export function startTracing(options: TracingOptions): Tracing {
  if (started) return started;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const exporter = options.exporter ?? (options.otlpEndpoint ? otlpExporter(options.otlpEndpoint) : undefined);
  if (!exporter) {
    // Ids only, whatever the caller asked: nothing here could honour a sampled flag.
    trace.setGlobalTracerProvider(idsOnlyTracerProvider);
    started = { exporting: false, shutdown: async () => undefined };
    return started;
  }
  const provider = new TracerProvider({
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(options.sampleRatio ?? 1) }),
    resource: resourceFromAttributes({ 'service.name': options.service }),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter,
        maxQueueSize: EXPORT_QUEUE_SPANS_MAX,
        maxExportBatchSize: EXPORT_BATCH_SPANS_MAX,
        scheduledDelayMillis: EXPORT_DELAY_MS,
        exportTimeoutMillis: EXPORT_TIMEOUT_MS,
      }),
    ],
  });
  trace.setGlobalTracerProvider(provider);
  started = { exporting: true, shutdown: () => provider.shutdown() };
  return started;
}

/** Loaded only when configured: the exporter and its encoders cost start-up time and memory a local stack never uses. */
function otlpExporter(endpoint: string): SpanExporter {
  const { OTLPTraceExporter } =
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded lazily, only when exporting
    require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  return new OTLPTraceExporter({
    url: `${endpoint.replace(/\/+$/, '')}${OTLP_TRACES_PATH}`,
    timeoutMillis: EXPORT_TIMEOUT_MS,
  });
}
