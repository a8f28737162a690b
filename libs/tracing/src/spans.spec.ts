// Proves the mode without an exporter, the one every local stack runs: spans are
// ids only (never recorded) yet nested spans share the trace, a received
// traceparent is continued (its trace id kept, a new span id made), a malformed
// or all-zero one starts a new trace, and the active span is written back as a
// W3C traceparent (not sampled, as nothing here records it); a span without a
// parent starts a new trace even inside another (a batch sent for several
// requests), whatever it links to. The traceparent is read and written without
// the global propagator: each reading and writing is compared with what
// @opentelemetry/core's W3C propagator makes of the same input.
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { suppressTracing, W3CTraceContextPropagator } from '@opentelemetry/core';
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

describe("the traceparent read and written as @opentelemetry/core's W3C propagator does", () => {
  const propagator = new W3CTraceContextPropagator();
  const getter = {
    keys: (carrier: Record<string, string>) => Object.keys(carrier),
    get: (carrier: Record<string, string>, key: string) => carrier[key],
  };
  const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
  const SPAN = '00f067aa0ba902b7';

  it.each([
    ['version 00, sampled', RECEIVED],
    ['version 00, not sampled', `00-${TRACE}-${SPAN}-00`],
    ['other flags', `00-${TRACE}-${SPAN}-03`],
    ['a later version with more fields', `01-${TRACE}-${SPAN}-01-later`],
    ['a later version without', `cc-${TRACE}-${SPAN}-01`],
    ['version ff', `ff-${TRACE}-${SPAN}-01`],
    ['version 00 with more fields', `00-${TRACE}-${SPAN}-01-extra`],
    ['uppercase hex', `00-${TRACE.toUpperCase()}-${SPAN}-01`],
    ['an all-zero span id', `00-${TRACE}-0000000000000000-01`],
    ['a short trace id', `00-${TRACE.slice(1)}-${SPAN}-01`],
    ['a leading and a trailing space', ` 00-${TRACE}-${SPAN}-01 `],
    ['empty', ''],
  ])('reads %s as the propagator does', (_name, received) => {
    const expected = trace.getSpanContext(propagator.extract(ROOT_CONTEXT, { traceparent: received }, getter));
    const actual = trace.getSpanContext(contextFromTraceparent(received));
    expect(actual === undefined ? undefined : { ...actual }).toEqual(expected);
  });

  it('writes the active span context, its flags included, as the propagator does', () => {
    for (const traceFlags of [0, 1, 3]) {
      const active = trace.setSpanContext(ROOT_CONTEXT, { traceId: TRACE, spanId: SPAN, traceFlags });
      const carrier: Record<string, string> = {};
      propagator.inject(active, carrier, { set: (target, key, value) => (target[key] = value) });
      expect(currentTraceparent(active)).toBe(carrier.traceparent);
    }
  });

  it('writes nothing for an invalid span context or where tracing is suppressed', () => {
    const invalid = trace.setSpanContext(ROOT_CONTEXT, { traceId: TRACE, spanId: 'not-a-span-id', traceFlags: 1 });
    expect(currentTraceparent(invalid)).toBeNull();
    expect(currentTraceparent(suppressTracing(contextFromTraceparent(RECEIVED)))).toBeNull();
  });
});

describe('the traceparent read by position', () => {
  const propagator = new W3CTraceContextPropagator();
  const getter = { keys: () => ['traceparent'], get: (carrier: Record<string, string>, key: string) => carrier[key] };
  const VALID = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
  // Every character of a valid traceparent replaced in turn by each of these: hex digits of both
  // cases, zero, the separator, a space, a newline, a letter past f.
  const REPLACEMENTS = ['0', '1', '9', 'a', 'f', 'A', 'F', 'g', '-', ' ', '\n', 'z'];

  it('reads each one-character change of a valid traceparent as the propagator does', () => {
    let compared = 0;
    for (let index = 0; index < VALID.length; index += 1) {
      for (const replacement of REPLACEMENTS) {
        const received = `${VALID.slice(0, index)}${replacement}${VALID.slice(index + 1)}`;
        const expected = trace.getSpanContext(propagator.extract(ROOT_CONTEXT, { traceparent: received }, getter));
        const actual = trace.getSpanContext(contextFromTraceparent(received));
        expect({ received, context: actual === undefined ? undefined : { ...actual } }).toEqual({
          received,
          context: expected,
        });
        compared += 1;
      }
    }
    expect(compared).toBe(VALID.length * REPLACEMENTS.length);
  });

  it('reads all-zero ids and flags as the propagator does', () => {
    for (const received of [
      '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
      '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01',
      '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00',
      '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-ff',
    ]) {
      const expected = trace.getSpanContext(propagator.extract(ROOT_CONTEXT, { traceparent: received }, getter));
      const actual = trace.getSpanContext(contextFromTraceparent(received));
      expect(actual === undefined ? undefined : { ...actual }).toEqual(expected);
    }
  });
});
