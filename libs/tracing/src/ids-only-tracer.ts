/**
 * The tracer of a process that exports nothing: each span is only its ids, as
 * the SDK's tracer makes them when its sampler answers "do not record" (the
 * parent's trace id or a new one, a new span id, not sampled), at about a
 * quarter of its cost: no sampler, attribute cleaning or span metrics, and ids
 * cut from a pooled buffer of random bytes refilled a few thousand ids at a time.
 */
import { randomFillSync } from 'node:crypto';
import { Context, context, Span, SpanOptions, trace, TraceFlags, Tracer, TracerProvider } from '@opentelemetry/api';
import { CheckedSpanContext, isValidSpanContext } from './span-context';

const TRACE_ID_BYTES = 16;
const SPAN_ID_BYTES = 8;
/** Random bytes drawn at once: 512 spans' worth of new traces. */
const ID_POOL_BYTES = 512 * (TRACE_ID_BYTES + SPAN_ID_BYTES);

const pool = Buffer.alloc(ID_POOL_BYTES);
let poolOffset = ID_POOL_BYTES;

/** `bytes` random bytes as lowercase hex; never all zeros (an invalid W3C id), however unlikely. */
function randomHex(bytes: number): string {
  if (poolOffset + bytes > ID_POOL_BYTES) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const start = poolOffset;
  poolOffset += bytes;
  const id = pool.toString('hex', start, start + bytes);
  return /[^0]/.test(id) ? id : randomHex(bytes);
}

class IdsOnlyTracer implements Tracer {
  startSpan(_name: string, options: SpanOptions = {}, parentContext: Context = context.active()): Span {
    const parent = options.root ? undefined : trace.getSpanContext(parentContext);
    const continued = parent !== undefined && isValidSpanContext(parent);
    return trace.wrapSpanContext(
      new CheckedSpanContext(
        continued ? parent.traceId : randomHex(TRACE_ID_BYTES),
        randomHex(SPAN_ID_BYTES),
        TraceFlags.NONE,
        continued ? parent.traceState : undefined,
        false,
      ),
    );
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, ...rest: unknown[]): ReturnType<F> {
    const fn = rest.pop() as F;
    const [options, parentContext = context.active()] = rest as [SpanOptions | undefined, Context | undefined];
    const span = this.startSpan(name, options, parentContext);
    return context.with(trace.setSpan(parentContext, span), fn as (span: Span) => ReturnType<F>, undefined, span);
  }
}

/** The one tracer of a process that exports nothing; it keeps neither links nor attributes. */
export const idsOnlyTracer: Tracer = new IdsOnlyTracer();

export const idsOnlyTracerProvider: TracerProvider = { getTracer: () => idsOnlyTracer };
