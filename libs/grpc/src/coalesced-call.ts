/**
 * Calls of one method made close together, sent as one batch RPC. Most of a
 * unary call's cost on both sides is the HTTP/2 stream itself (the session's
 * request, headers, writes, close), whatever the message: N calls made in the
 * same event-loop pass and sent as one batch pay for one stream instead of N.
 *
 * A coalescer collects the items its callers give it and sends them together
 * at the end of the current pass (setImmediate: after the I/O callbacks and the
 * promise continuations that run in this pass, so a lone caller waits no timer),
 * or after a window of at most COALESCING_WINDOW_MS_MAX when one is set, or at
 * once when `batchItemsMax` items are waiting. Each caller gets its own
 * answer or its own error (one item's refusal does not touch its neighbours);
 * a batch that fails as a whole (transport, deadline, an open breaker) fails
 * each of its items with that one error, as a single call would have failed.
 * The batch's deadline is its earliest item's. Every batch's size is observed
 * in grpc_client_batch_items{method}.
 *
 * A batch serves several requests, each in its own trace: it is sent in a span
 * of its own (`batch <method>`) that starts a new trace, linked to the span of
 * each item's caller (the links are kept when spans are recorded), so the batch
 * RPC's client span and the server's work land in the batch's trace, not in the
 * trace of whichever request happened to open or fill the batch. Without an
 * exporter a span is only its ids: the batch's lines carry its own trace id, and
 * the items are found by their request ids.
 *
 * A batch RPC's answer per item travels as an ItemAnswer: the value, or the
 * refusal as the AppError payload the `x-error` trailer of a single call
 * carries (itemRefusal / fromItemRefusal), so the caller rebuilds the same
 * AppError a single call would have given it.
 */
import { AppError, fromPayload, isAppError, toPayload } from '@platform/errors';
import { histogram, metricsRegistry, Registry } from '@platform/metrics';
import { activeContext, Context, inSpan, SpanKind } from '@platform/tracing';

/** The most items one batch RPC carries: a batch server refuses more, a coalescer's setting is checked against it. */
export const COALESCED_BATCH_ITEMS_MAX = 256;
/** The longest a coalescer may wait for more items after the first (ms); 0 is the end of the current pass. */
export const COALESCING_WINDOW_MS_MAX = 1;

const BATCH_ITEMS_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256];

export interface CoalescingSettings {
  /** Items that send a batch at once, 1..COALESCED_BATCH_ITEMS_MAX. */
  batchItemsMax: number;
  /** 0: the batch leaves at the end of the pass its first item came in; else that many ms later (≤ COALESCING_WINDOW_MS_MAX). */
  windowMs: number;
}

/** Refuses settings out of their bounds (a configuration error, found at start). */
export function checkCoalescingSettings(settings: CoalescingSettings): CoalescingSettings {
  const { batchItemsMax, windowMs } = settings;
  if (!Number.isInteger(batchItemsMax) || batchItemsMax < 1 || batchItemsMax > COALESCED_BATCH_ITEMS_MAX)
    throw new Error(`batchItemsMax must be an integer in 1..${COALESCED_BATCH_ITEMS_MAX}, not ${batchItemsMax}`);
  if (!Number.isInteger(windowMs) || windowMs < 0 || windowMs > COALESCING_WINDOW_MS_MAX)
    throw new Error(`windowMs must be an integer in 0..${COALESCING_WINDOW_MS_MAX}, not ${windowMs}`);
  return settings;
}

/** One item's outcome in a batch: its answer or its own error. */
export type ItemOutcome<A> = { answer: A } | { error: unknown };

export interface CoalescedCallOptions<I, A> extends CoalescingSettings {
  /** The batch RPC's method name, the histogram's label (a bounded set: one per coalescer). */
  method: string;
  /** The deadline of an item given none (the standard call deadline), ms. */
  deadlineMs: number;
  /**
   * Sends one batch, bounded by `deadlineMs` (the earliest item's, from now);
   * answers one outcome per item, in the items' order. A rejection fails every item.
   */
  send(items: readonly I[], deadlineMs: number): Promise<readonly ItemOutcome<A>[]>;
  registry?: Registry;
}

interface Waiting<I, A> {
  item: I;
  deadlineAtMs: number;
  /** The caller's trace context, linked to by the batch's span. */
  traceContext: Context;
  resolve(answer: A): void;
  reject(error: unknown): void;
}

export type CoalescedCall<I, A> = (item: I, options?: { deadlineMs?: number }) => Promise<A>;

function batchItemsHistogram(registry: Registry) {
  return histogram(
    {
      name: 'grpc_client_batch_items',
      help: 'Items per batch RPC a coalescer sent, by method.',
      labelNames: ['method'] as const,
      buckets: BATCH_ITEMS_BUCKETS,
    },
    registry,
  );
}

/**
 * Settles each waiting caller with its outcome; answers that do not match the items
 * fail them all, an item answered with no outcome fails that item. A caller's promise
 * settles once: if this throws half-way, the flush's catch fails only those not yet
 * settled (rejecting a settled promise does nothing).
 */
function settle<I, A>(batch: readonly Waiting<I, A>[], outcomes: readonly ItemOutcome<A>[]): void {
  if (!Array.isArray(outcomes) || outcomes.length !== batch.length) {
    const error = new Error(`batch answered ${outcomes?.length ?? 'no'} outcomes for ${batch.length} items`);
    for (const waiting of batch) waiting.reject(error);
    return;
  }
  outcomes.forEach((outcome, index) => {
    if (outcome && 'error' in outcome) batch[index].reject(outcome.error);
    else if (outcome && 'answer' in outcome) batch[index].resolve(outcome.answer);
    else batch[index].reject(new Error(`batch answered no outcome for item ${index}`));
  });
}

/** A function that makes single calls, each sent in a batch with the calls made beside it (see above). */
export function coalescedCall<I, A>(options: CoalescedCallOptions<I, A>): CoalescedCall<I, A> {
  const { batchItemsMax, windowMs } = checkCoalescingSettings(options);
  const batchItems = batchItemsHistogram(options.registry ?? metricsRegistry).labels(options.method);
  let waiting: Waiting<I, A>[] = [];
  let timer: NodeJS.Immediate | NodeJS.Timeout | null = null;

  const flush = () => {
    if (timer) {
      if (windowMs === 0) clearImmediate(timer as NodeJS.Immediate);
      else clearTimeout(timer as NodeJS.Timeout);
      timer = null;
    }
    const batch = waiting;
    waiting = [];
    if (batch.length === 0) return;
    batchItems.observe(batch.length);
    const deadlineAtMs = Math.min(...batch.map((entry) => entry.deadlineAtMs));
    const failAll = (error: unknown) => {
      for (const entry of batch) entry.reject(error);
    };
    // A new trace linked to every item's (see above); send's own throw rejects `sent`.
    const sent = inSpan(
      `batch ${options.method}`,
      { kind: SpanKind.INTERNAL, parent: null, linkedTo: batch.map((entry) => entry.traceContext) },
      async () =>
        options.send(
          batch.map((entry) => entry.item),
          Math.max(1, deadlineAtMs - Date.now()),
        ),
    );
    // settle's own failure reaches failAll too: no caller is left waiting, no rejection unhandled.
    sent.then((outcomes) => settle(batch, outcomes)).catch(failAll);
  };

  return (item, callOptions = {}) =>
    new Promise<A>((resolve, reject) => {
      const deadlineAtMs = Date.now() + (callOptions.deadlineMs ?? options.deadlineMs);
      waiting.push({ item, deadlineAtMs, traceContext: activeContext(), resolve, reject });
      if (waiting.length >= batchItemsMax) flush();
      else if (!timer) timer = windowMs === 0 ? setImmediate(flush) : setTimeout(flush, windowMs);
    });
}

/**
 * One item's refusal as a batch RPC carries it: the AppError payload, JSON, as the
 * `x-error` trailer of a single call. Anything else is not a refusal: it is thrown,
 * and fails the batch as it would have failed a single call.
 */
export function itemRefusal(error: unknown): string {
  if (!isAppError(error)) throw error;
  return JSON.stringify(toPayload(error));
}

/** The AppError an item's refusal carried; an unreadable one is INTERNAL_ERROR. */
export function fromItemRefusal(refusal: string): AppError {
  try {
    return fromPayload(JSON.parse(refusal)) ?? new AppError('INTERNAL_ERROR');
  } catch {
    return new AppError('INTERNAL_ERROR');
  }
}
