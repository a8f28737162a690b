// Proves the mode without an exporter, the one every local stack runs: spans are
// ids only (never recorded) yet nested spans share the trace, a received
// traceparent is continued (its trace id kept, a new span id made), a malformed
// or all-zero one starts a new trace, and the active span is written back as a
// W3C traceparent (not sampled, as nothing here records it); a span without a
// parent starts a new trace even inside another (a batch sent for several
// requests), whatever it links to.
import {
  activeContext,
  contextFromTraceparent,
  currentTraceparent,
  inSpan,
  SpanKind,
  startSpan,
  startTracing,
} from './index';

const RECEIVED = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-00$/;

beforeAll(() => {
  expect(startTracing({ service: 'test' }).exporting).toBe(false);
});

describe('spans without an exporter', () => {
  it('has no traceparent outside a span', () => {
    expect(currentTraceparent()).toBeNull();
  });

  it('gives every span ids, never records it, and nests spans in one trace', async () => {
    const [outer, inner] = await inSpan('outer', { kind: SpanKind.SERVER }, async () => {
      const outerParent = currentTraceparent();
      const { span } = startSpan('probe', { kind: SpanKind.INTERNAL });
      expect(span.isRecording()).toBe(false);
      span.end();
      const innerParent = await inSpan('inner', { kind: SpanKind.CLIENT }, async () => currentTraceparent());
      return [outerParent, innerParent];
    });
    const [, outerTrace, outerSpan] = TRACEPARENT.exec(String(outer)) ?? [];
    const [, innerTrace, innerSpan] = TRACEPARENT.exec(String(inner)) ?? [];
    expect(outerTrace).toHaveLength(32);
    expect(innerTrace).toBe(outerTrace);
    expect(innerSpan).not.toBe(outerSpan);
  });

  it('starts a new trace for a span with no parent, inside another span, linking to it', async () => {
    const [outer, batch] = await inSpan('request', { kind: SpanKind.SERVER }, async () => {
      const linkedTo = [activeContext()];
      const inBatch = await inSpan('batch', { kind: SpanKind.INTERNAL, parent: null, linkedTo }, async () =>
        currentTraceparent(),
      );
      return [currentTraceparent(), inBatch];
    });
    const [, outerTrace] = TRACEPARENT.exec(String(outer)) ?? [];
    const [, batchTrace] = TRACEPARENT.exec(String(batch)) ?? [];
    expect(batchTrace).toHaveLength(32);
    expect(batchTrace).not.toBe(outerTrace);
  });

  it('continues a received traceparent in a span of its own', async () => {
    const sent = await inSpan(
      'continued',
      { kind: SpanKind.SERVER, parent: contextFromTraceparent(RECEIVED) },
      async () => currentTraceparent(),
    );
    expect(sent).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-00$/);
    expect(sent).not.toContain('00f067aa0ba902b7');
  });

  it.each([
    ['malformed', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7'],
    ['all-zero trace id', '00-00000000000000000000000000000000-00f067aa0ba902b7-01'],
    ['too long', `${RECEIVED}-${'a'.repeat(64)}`],
    ['not a string', 42],
  ])('starts a new trace for a %s traceparent', async (_name, received) => {
    const sent = await inSpan('new', { kind: SpanKind.SERVER, parent: contextFromTraceparent(received) }, async () =>
      currentTraceparent(),
    );
    expect(sent).toMatch(TRACEPARENT);
    expect(sent).not.toContain('4bf92f3577b34da6a3ce929d0e0e4736');
  });

  it('ends the span and passes the failure on when the work rejects', async () => {
    await expect(
      inSpan('failing', { kind: SpanKind.INTERNAL }, async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(currentTraceparent()).toBeNull();
  });
});

describe('ids', () => {
  it('makes lowercase hex ids, a new trace id per new trace and a new span id per span, across many pool refills', async () => {
    const traceIds = new Set<string>();
    const spanIds = new Set<string>();
    for (let index = 0; index < 2_000; index += 1) {
      const sent = await inSpan('new', { kind: SpanKind.SERVER }, async () => currentTraceparent());
      const [, traceId, spanId] = TRACEPARENT.exec(String(sent)) ?? [];
      traceIds.add(traceId);
      spanIds.add(spanId);
    }
    expect(traceIds.size).toBe(2_000);
    expect(spanIds.size).toBe(2_000);
  });
});
