// Proves the coalescer's contract with a recording batch sender (no network):
// calls made in one pass leave as one batch at the end of that pass, answers go
// back to their callers in the items' order, one item's error reaches that
// caller only, a failed batch fails every item with the same error, a full batch
// leaves at once (the rest in the next), a window holds the batch that long, the
// batch's deadline is its earliest item's, each batch's size is observed, and
// out-of-bounds settings and item refusals map as a single call's would; a
// batch is sent in a trace of its own, not in the trace of the request that
// opened it.
import { AppError } from '@platform/errors';
import { Registry } from '@platform/metrics';
import { currentTraceparent, inSpan, SpanKind, startTracing } from '@platform/tracing';
import {
  checkCoalescingSettings,
  coalescedCall,
  CoalescedCallOptions,
  fromItemRefusal,
  ItemOutcome,
  itemRefusal,
} from './coalesced-call';

interface Sent {
  items: readonly string[];
  deadlineMs: number;
}

/** A coalescer whose batches are recorded and answered by `answer` (default: each item upper-cased). */
function recording(
  settings: Partial<CoalescedCallOptions<string, string>> = {},
  answer: (items: readonly string[]) => Promise<readonly ItemOutcome<string>[]> = async (items) =>
    items.map((item) => ({ answer: item.toUpperCase() })),
) {
  const sent: Sent[] = [];
  const registry = new Registry();
  const call = coalescedCall<string, string>({
    method: 'GetThings',
    batchItemsMax: 8,
    windowMs: 0,
    deadlineMs: 5_000,
    registry,
    send: (items, deadlineMs) => {
      sent.push({ items, deadlineMs });
      return answer(items);
    },
    ...settings,
  });
  return { call, sent, registry };
}

const nextPass = () => new Promise((resolve) => setImmediate(resolve));

describe('coalescedCall', () => {
  it('sends the calls of one pass as one batch at the end of the pass, each caller getting its own answer', async () => {
    const { call, sent } = recording();
    const answers = Promise.all([call('a'), call('b'), call('c')]);
    expect(sent).toEqual([]);
    await expect(answers).resolves.toEqual(['A', 'B', 'C']);
    expect(sent.map((batch) => batch.items)).toEqual([['a', 'b', 'c']]);
  });

  it('sends a lone call without waiting a timer, and calls of a later pass in a later batch', async () => {
    const { call, sent } = recording();
    await expect(call('a')).resolves.toBe('A');
    await nextPass();
    await expect(Promise.all([call('b'), call('c')])).resolves.toEqual(['B', 'C']);
    expect(sent.map((batch) => batch.items)).toEqual([['a'], ['b', 'c']]);
  });

  it('rejects only the item whose outcome is an error; its neighbours get their answers', async () => {
    const notFound = new AppError('ORDER_NOT_FOUND');
    const { call } = recording({}, async (items) =>
      items.map((item) => (item === 'missing' ? { error: notFound } : { answer: item.toUpperCase() })),
    );
    const [a, missing, b] = await Promise.allSettled([call('a'), call('missing'), call('b')]);
    expect(a).toEqual({ status: 'fulfilled', value: 'A' });
    expect(missing).toEqual({ status: 'rejected', reason: notFound });
    expect(b).toEqual({ status: 'fulfilled', value: 'B' });
  });

  it('fails every item of a batch that failed as a whole with that one error, and the next batch is sent anew', async () => {
    const unavailable = new AppError('SERVICE_UNAVAILABLE');
    let failing = true;
    const { call, sent } = recording({}, async (items) => {
      if (failing) throw unavailable;
      return items.map((item) => ({ answer: item }));
    });
    const outcomes = await Promise.allSettled([call('a'), call('b')]);
    expect(outcomes).toEqual([
      { status: 'rejected', reason: unavailable },
      { status: 'rejected', reason: unavailable },
    ]);
    failing = false;
    await expect(call('c')).resolves.toBe('c');
    expect(sent.map((batch) => batch.items)).toEqual([['a', 'b'], ['c']]);
  });

  it('fails every item when the sender throws at once or answers a count that is not the items', async () => {
    const thrown = new Error('serialisation');
    const throwing = coalescedCall<string, string>({
      method: 'GetThings',
      batchItemsMax: 8,
      windowMs: 0,
      deadlineMs: 5_000,
      registry: new Registry(),
      send: () => {
        throw thrown;
      },
    });
    await expect(Promise.allSettled([throwing('a'), throwing('b')])).resolves.toEqual([
      { status: 'rejected', reason: thrown },
      { status: 'rejected', reason: thrown },
    ]);
    const { call } = recording({}, async () => [{ answer: 'only one' }]);
    const outcomes = await Promise.allSettled([call('a'), call('b')]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    expect((outcomes[0] as PromiseRejectedResult).reason.message).toBe('batch answered 1 outcomes for 2 items');
  });

  it('settles every caller once when the answers cannot be read: none answered, one item answered with nothing', async () => {
    const none = recording({}, async () => null as unknown as ItemOutcome<string>[]);
    const outcomes = await Promise.allSettled([none.call('a'), none.call('b')]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    const holed = recording({}, async () => [null as unknown as ItemOutcome<string>, { answer: 'B' }]);
    const [first, second] = await Promise.allSettled([holed.call('a'), holed.call('b')]);
    expect(first).toMatchObject({ status: 'rejected', reason: new Error('batch answered no outcome for item 0') });
    expect(second).toEqual({ status: 'fulfilled', value: 'B' });
  });

  it('fails the callers not yet settled when settling throws half-way, and leaves the settled one as it was', async () => {
    const thrown = new Error('unreadable outcome');
    const exploding = {
      get answer(): string {
        throw thrown;
      },
    } as ItemOutcome<string>;
    const { call } = recording({}, async () => [{ answer: 'A' }, exploding, { answer: 'C' }]);
    await expect(Promise.allSettled([call('a'), call('b'), call('c')])).resolves.toEqual([
      { status: 'fulfilled', value: 'A' },
      { status: 'rejected', reason: thrown },
      { status: 'rejected', reason: thrown },
    ]);
  });

  it('sends a full batch at once and the rest at the end of the pass', async () => {
    const { call, sent } = recording({ batchItemsMax: 2 });
    const answers = Promise.all(['a', 'b', 'c', 'd', 'e'].map((item) => call(item)));
    expect(sent.map((batch) => batch.items)).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    await expect(answers).resolves.toEqual(['A', 'B', 'C', 'D', 'E']);
    expect(sent.map((batch) => batch.items)).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
  });

  it('holds the batch for the window when one is set, gathering calls of later passes', async () => {
    const { call, sent } = recording({ windowMs: 1 });
    const first = call('a');
    await nextPass();
    const second = call('b');
    await expect(Promise.all([first, second])).resolves.toEqual(['A', 'B']);
    expect(sent.map((batch) => batch.items)).toEqual([['a', 'b']]);
  });

  it("bounds the batch by its earliest item's deadline", async () => {
    const { call, sent } = recording();
    await Promise.all([call('a', { deadlineMs: 9_000 }), call('b', { deadlineMs: 200 }), call('c')]);
    expect(sent).toHaveLength(1);
    expect(sent[0].deadlineMs).toBeLessThanOrEqual(200);
    expect(sent[0].deadlineMs).toBeGreaterThan(0);
  });

  it('sends a batch in a new trace of its own, whichever request opened or filled it', async () => {
    startTracing({ service: 'test' });
    const traceOf = (traceparent: string | null) => String(traceparent).split('-')[1];
    let sentIn: string | null = null;
    const { call } = recording({ batchItemsMax: 2 }, async (items) => {
      sentIn = currentTraceparent();
      return items.map((item) => ({ answer: item }));
    });
    const inRequest = (item: string) =>
      inSpan('request', { kind: SpanKind.SERVER }, async () => {
        await call(item);
        return currentTraceparent();
      });
    const requests = await Promise.all([inRequest('a'), inRequest('b')]);
    expect(traceOf(sentIn)).toMatch(/^[0-9a-f]{32}$/);
    expect(requests.map(traceOf)).not.toContain(traceOf(sentIn));
  });

  it('observes each batch size in grpc_client_batch_items by method', async () => {
    const { call, registry } = recording({ batchItemsMax: 3 });
    await Promise.all(['a', 'b', 'c', 'd'].map((item) => call(item)));
    const metric = await registry.getSingleMetric('grpc_client_batch_items')!.get();
    const value = (name: string, le?: number) =>
      metric.values.find(
        (sample) =>
          (sample as { metricName?: string }).metricName === name &&
          sample.labels.method === 'GetThings' &&
          sample.labels.le === le,
      )?.value;
    expect(value('grpc_client_batch_items_count')).toBe(2);
    expect(value('grpc_client_batch_items_sum')).toBe(4);
    expect(value('grpc_client_batch_items_bucket', 1)).toBe(1);
    expect(value('grpc_client_batch_items_bucket', 2)).toBe(1);
    expect(value('grpc_client_batch_items_bucket', 4)).toBe(2);
  });

  it('refuses settings out of their bounds', () => {
    expect(() => checkCoalescingSettings({ batchItemsMax: 0, windowMs: 0 })).toThrow(/batchItemsMax/);
    expect(() => checkCoalescingSettings({ batchItemsMax: 257, windowMs: 0 })).toThrow(/batchItemsMax/);
    expect(() => checkCoalescingSettings({ batchItemsMax: 1.5, windowMs: 0 })).toThrow(/batchItemsMax/);
    expect(() => checkCoalescingSettings({ batchItemsMax: 8, windowMs: 2 })).toThrow(/windowMs/);
    expect(() => checkCoalescingSettings({ batchItemsMax: 8, windowMs: -1 })).toThrow(/windowMs/);
    expect(checkCoalescingSettings({ batchItemsMax: 256, windowMs: 1 })).toEqual({ batchItemsMax: 256, windowMs: 1 });
    expect(() => recording({ batchItemsMax: 0 })).toThrow(/batchItemsMax/);
  });
});

describe('item refusals', () => {
  it('carry an AppError whole, as the x-error trailer of a single call does', () => {
    const refusal = itemRefusal(new AppError('VALIDATION_FAILED', { fields: ['kesAmount'] }));
    const rebuilt = fromItemRefusal(refusal);
    expect(rebuilt).toBeInstanceOf(AppError);
    expect(rebuilt).toMatchObject({ code: 'VALIDATION_FAILED', fields: ['kesAmount'] });
    expect(fromItemRefusal(itemRefusal(new AppError('ORDER_NOT_FOUND')))).toMatchObject({ code: 'ORDER_NOT_FOUND' });
  });

  it('throw anything that is not a refusal, and read an unreadable one as INTERNAL_ERROR', () => {
    const bug = new TypeError('x is undefined');
    expect(() => itemRefusal(bug)).toThrow(bug);
    expect(fromItemRefusal('not json')).toMatchObject({ code: 'INTERNAL_ERROR' });
    expect(fromItemRefusal('{"code":"NO_SUCH_CODE"}')).toMatchObject({ code: 'INTERNAL_ERROR' });
  });
});
