/**
 * The standard OpenTelemetry instrumentations: a span per PostgreSQL query
 * (`pg`, under TypeORM), per Redis command (`ioredis`, the gateway) and per
 * outgoing HTTP(S) request (`node:http`/`node:https`: webhook-delivery's
 * attempts). They patch modules as they are required, so they are registered
 * before anything else is loaded: `instrument.ts` does it, imported first by
 * every service's entry point.
 *
 * Only when spans are exported (an OTLP endpoint is configured). Otherwise
 * nothing here is even loaded: a local stack pays no module patching and no
 * per-query wrapper. When they are on, they stay cheap and add only what the
 * platform's own spans lack:
 * - a span only inside a trace (a request, a gRPC call, an event delivery):
 *   the outbox relay's and the schedulers' polls start none of their own;
 * - no incoming HTTP spans: the gateway already spans each partner request
 *   (continuing the partner's traceparent) and the metrics endpoint needs none;
 * - no pool-connect spans, no query parameters (only the SQL text, whose
 *   values are placeholders), and Redis commands by name only (keys can name
 *   credentials).
 * The OTLP exporter's own requests are not traced: the exporter suppresses
 * tracing around them.
 */
import type { Instrumentation } from '@opentelemetry/instrumentation';

/* eslint-disable @typescript-eslint/no-require-imports -- loaded only when exporting; see above. */

/** The names the instrumentations report (`instrumentationName`), in registration order. */
export const STANDARD_INSTRUMENTATIONS = [
  '@opentelemetry/instrumentation-pg',
  '@opentelemetry/instrumentation-ioredis',
  '@opentelemetry/instrumentation-http',
] as const;

let registered: Instrumentation[] | null = null;

/**
 * Registers the standard instrumentations when `otlpEndpoint` is set, once per
 * process; returns those in force (none without an endpoint). Spans they start
 * go to the global tracer provider, which `startTracing` sets later.
 */
export function registerStandardInstrumentations(otlpEndpoint: string | undefined): readonly Instrumentation[] {
  if (registered) return registered;
  if (!otlpEndpoint) return [];
  const instrumentations = createInstrumentations();
  const { registerInstrumentations } =
    require('@opentelemetry/instrumentation') as typeof import('@opentelemetry/instrumentation');
  registerInstrumentations({ instrumentations });
  registered = instrumentations;
  return registered;
}

/** Unpatches what was registered (tests). */
export function unregisterStandardInstrumentations(): void {
  for (const instrumentation of registered ?? []) instrumentation.disable();
  registered = null;
}

function createInstrumentations(): Instrumentation[] {
  const { PgInstrumentation } =
    require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  const { IORedisInstrumentation } =
    require('@opentelemetry/instrumentation-ioredis') as typeof import('@opentelemetry/instrumentation-ioredis');
  const { HttpInstrumentation } =
    require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  return [
    new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true, enhancedDatabaseReporting: false }),
    new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (commandName) => commandName }),
    new HttpInstrumentation({ disableIncomingRequestInstrumentation: true, requireParentforOutgoingSpans: true }),
  ];
}
