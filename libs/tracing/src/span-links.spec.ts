// Proves that a span working for others (a batch sent for several requests) is recorded with a
// link to each of their spans when spans are exported: links are made for a recording tracer
// only (the ids-only tracer drops them, spans.spec.ts), so this is where they must still appear.
// A context without a valid span (none active, or an all-zero one) gives no link. Its own
// process: the exporting mode is chosen once per process (startTracing).
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { activeContext, Context, inSpan, SpanKind, startTracing } from './index';
import { recordingExporter } from './testing/recording-exporter';

const { exporter, finished } = recordingExporter();
const tracing = startTracing({ service: 'svc-under-test', exporter, sampleRatio: 1 });

const ALL_ZERO = trace.setSpanContext(ROOT_CONTEXT, {
  traceId: '0'.repeat(32),
  spanId: '0'.repeat(16),
  traceFlags: 1,
});

describe('links of a span working for others, when exporting', () => {
  it('links to each valid span it works for, in a trace of its own', async () => {
    const linkedTo: Context[] = [];
    await inSpan('request one', { kind: SpanKind.SERVER }, async () => linkedTo.push(activeContext()));
    await inSpan('request two', { kind: SpanKind.SERVER }, async () => linkedTo.push(activeContext()));
    linkedTo.push(ROOT_CONTEXT, ALL_ZERO);
    await inSpan('batch', { kind: SpanKind.INTERNAL, parent: null, linkedTo }, async () => undefined);

    await tracing.shutdown();
    const byName = new Map(finished.map((span) => [span.name, span]));
    const batch = byName.get('batch')!;
    const requests = ['request one', 'request two'].map((name) => byName.get(name)!.spanContext());
    expect(batch.links.map((link) => link.context)).toEqual(requests);
    expect(batch.parentSpanContext).toBeUndefined();
    for (const request of requests) expect(batch.spanContext().traceId).not.toBe(request.traceId);
  });
});
