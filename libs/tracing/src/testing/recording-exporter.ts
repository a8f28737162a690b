/**
 * An exporter for specs: keeps every span it is given, in order, and reports
 * each export a success. Pass it to startTracing and read `finished` after the
 * provider's shutdown (the batch processor exports on its timer or then).
 */
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';

const SUCCESS = 0;

export function recordingExporter(): { exporter: SpanExporter; finished: ReadableSpan[] } {
  const finished: ReadableSpan[] = [];
  const exporter: SpanExporter = {
    export: (spans, done) => {
      finished.push(...spans);
      done({ code: SUCCESS });
    },
    shutdown: async () => undefined,
  };
  return { exporter, finished };
}
