// Proves the exporting mode: spans are recorded with the service's name, a child
// span names its parent, a failure marks the span as failed, and a caller's
// sampled flag is followed even when new traces are sampled at ratio 0.
import { SpanStatusCode } from '@opentelemetry/api';
import { contextFromTraceparent, inSpan, SpanKind, startTracing } from './index';
import { recordingExporter } from './testing/recording-exporter';

const { exporter, finished } = recordingExporter();
const tracing = startTracing({ service: 'svc-under-test', exporter, sampleRatio: 0 });

async function exported() {
  // The batch processor exports on its timer or at shutdown.
  await tracing.shutdown();
  return finished;
}

describe('spans with an exporter', () => {
  it('records sampled spans, child under parent, with the service name and failures marked', async () => {
    expect(tracing.exporting).toBe(true);
    const sampled = contextFromTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
    await inSpan('parent', { kind: SpanKind.SERVER, parent: sampled }, async () => {
      await inSpan('child', { kind: SpanKind.CLIENT }, async () => undefined);
      await inSpan('failing', { kind: SpanKind.INTERNAL }, async () => {
        throw new Error('boom');
      }).catch(() => undefined);
    });
    // A new trace at ratio 0: not recorded.
    await inSpan('unsampled', { kind: SpanKind.SERVER }, async () => undefined);
    const spans = await exported();
    const byName = new Map(spans.map((span) => [span.name, span]));
    expect([...byName.keys()].sort()).toEqual(['child', 'failing', 'parent']);
    const parent = byName.get('parent')!;
    expect(parent.spanContext().traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(parent.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    expect(byName.get('child')!.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
    expect(byName.get('failing')!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'boom' });
    expect(parent.resource.attributes['service.name']).toBe('svc-under-test');
  });
});
