// Proves the consumer's batching against a fake channel: messages arriving in one
// burst reach the handler as one batch (bounded by batchSizeMax); a batch whose
// events were all handled is acked with one `multiple` ack; an event the handler
// failed (or a whole batch whose handler threw) is requeued after a delay and is
// never covered by a later batch's `multiple` ack meanwhile; a malformed body is
// rejected to the dead-letter exchange at once; every message is counted by
// what became of it (acked, requeued, dead_lettered); and each event reaches the
// handler with its message's valid traceparent header, a malformed one dropped.
import { EventEmitter } from 'node:events';
import type { ConsumeMessage } from 'amqplib';
import { createLogger } from '@platform/logger';
import { Registry } from '@platform/metrics';
import type { AmqpConnection } from './amqp';
import type { BusEvent } from './catalogue';
import { startTracing } from '@platform/tracing';
import { BatchOutcome, ConsumedEvent, EventConsumer } from './consumer';

const logger = createLogger('consumer-spec', 'error');
logger.silent = true;

type Settlement = { kind: 'ack' | 'nack'; tag: number; multiple: boolean; requeue?: boolean };

class FakeChannel {
  settlements: Settlement[] = [];
  deliver: ((message: ConsumeMessage | null) => void) | null = null;
  async prefetch(): Promise<void> {}
  async consume(_queue: string, onMessage: (message: ConsumeMessage | null) => void) {
    this.deliver = onMessage;
    return { consumerTag: 'ctag' };
  }
  async cancel(): Promise<void> {}
  async close(): Promise<void> {}
  ack(message: ConsumeMessage, multiple = false): void {
    this.settlements.push({ kind: 'ack', tag: message.fields.deliveryTag, multiple });
  }
  nack(message: ConsumeMessage, multiple = false, requeue = true): void {
    this.settlements.push({ kind: 'nack', tag: message.fields.deliveryTag, multiple, requeue });
  }
}

const event = (index: number): BusEvent => ({
  id: `e-${index}`,
  type: 'credit.received',
  createdAt: '2026-01-01T00:00:00.000Z',
  partnerId: 'p-1',
  data: { index },
});

const message = (tag: number, body: unknown, headers: Record<string, unknown> = {}): ConsumeMessage =>
  ({
    content: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
    fields: { deliveryTag: tag, redelivered: false, exchange: 'x', routingKey: 'k', consumerTag: 'ctag' },
    properties: { messageId: `m-${tag}`, headers },
  }) as unknown as ConsumeMessage;

const tick = () => new Promise((resolve) => setImmediate(resolve));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function start(handleBatch: (events: ConsumedEvent[]) => Promise<BatchOutcome>, batchSizeMax = 100) {
  const channel = new FakeChannel();
  const amqp = Object.assign(new EventEmitter(), { createChannel: async () => channel }) as unknown as AmqpConnection;
  const registry = new Registry();
  const consumer = new EventConsumer(
    amqp,
    logger,
    { queue: 'q', prefetch: 256, batchSizeMax, setup: async () => undefined, handleBatch },
    registry,
  );
  await consumer.start();
  const send = (tag: number, body: unknown = event(tag), headers: Record<string, unknown> = {}) =>
    channel.deliver?.(message(tag, body, headers));
  return { channel, consumer, send, registry };
}

describe('EventConsumer batches', () => {
  it('hands a burst to the handler as one batch and acks it with one multiple ack', async () => {
    const batches: string[][] = [];
    const { channel, send } = await start(async (events) => {
      batches.push(events.map((item) => item.id));
      return events.map(() => null);
    });
    for (let tag = 1; tag <= 5; tag += 1) send(tag);
    await tick();
    await tick();
    expect(batches).toEqual([['e-1', 'e-2', 'e-3', 'e-4', 'e-5']]);
    expect(channel.settlements).toEqual([{ kind: 'ack', tag: 5, multiple: true }]);
  });

  it('never hands the handler more than batchSizeMax events at once', async () => {
    const sizes: number[] = [];
    const { send } = await start(async (events) => {
      sizes.push(events.length);
      return events.map(() => null);
    }, 2);
    for (let tag = 1; tag <= 5; tag += 1) send(tag);
    await sleep(20);
    expect(sizes).toEqual([2, 2, 1]);
  });

  it('requeues a failed event after a delay, and acks the later batch one by one meanwhile', async () => {
    let call = 0;
    const { channel, send } = await start(async (events) => {
      call += 1;
      return events.map((item) => (call === 1 && item.id === 'e-2' ? new Error('database down') : null));
    });
    for (let tag = 1; tag <= 3; tag += 1) send(tag);
    await sleep(10);
    // e-2 waits for its requeue: the batch's successes are acked one by one, never with a multiple ack past tag 2.
    expect(channel.settlements).toEqual([
      { kind: 'ack', tag: 1, multiple: false },
      { kind: 'ack', tag: 3, multiple: false },
    ]);
    send(4);
    await sleep(10);
    expect(channel.settlements.at(-1)).toEqual({ kind: 'ack', tag: 4, multiple: false });
    await sleep(600);
    expect(channel.settlements).toContainEqual({ kind: 'nack', tag: 2, multiple: false, requeue: true });
    // Once e-2 is settled, a batch may be acked with one multiple ack again.
    send(5);
    send(6);
    await sleep(10);
    expect(channel.settlements.at(-1)).toEqual({ kind: 'ack', tag: 6, multiple: true });
  });

  it('requeues every event of a batch whose handler threw', async () => {
    const { channel, send } = await start(async () => {
      throw new Error('database down');
    });
    send(1);
    send(2);
    await sleep(600);
    expect(channel.settlements).toEqual([
      { kind: 'nack', tag: 1, multiple: false, requeue: true },
      { kind: 'nack', tag: 2, multiple: false, requeue: true },
    ]);
  });

  it('rejects a malformed body to the dead letters at once, without the handler', async () => {
    const handled: string[] = [];
    const { channel, send } = await start(async (events) => {
      handled.push(...events.map((item) => item.id));
      return events.map(() => null);
    });
    send(1, '{not json');
    send(2);
    await sleep(10);
    expect(handled).toEqual(['e-2']);
    expect(channel.settlements).toEqual([
      { kind: 'nack', tag: 1, multiple: false, requeue: false },
      { kind: 'ack', tag: 2, multiple: true },
    ]);
  });

  it('counts every message by what became of it', async () => {
    const { send, registry } = await start(async (events) =>
      events.map((item) => (item.id === 'e-2' ? new Error('database away') : null)),
    );
    send(1);
    send(2);
    send(3, '{');
    await sleep(20);
    const text = await registry.metrics();
    expect(text).toContain('event_consumer_messages_total{queue="q",outcome="acked"} 1');
    expect(text).toContain('event_consumer_messages_total{queue="q",outcome="requeued"} 1');
    expect(text).toContain('event_consumer_messages_total{queue="q",outcome="dead_lettered"} 1');
  });

  it("hands each event its message's valid traceparent, and drops a malformed one", async () => {
    startTracing({ service: 'consumer-spec' });
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const seen: Array<string | undefined> = [];
    const { send } = await start(async (events) => {
      seen.push(...events.map((item) => item.traceparent));
      return events.map(() => null);
    });
    send(1, event(1), { traceparent });
    send(2, event(2), { traceparent: 'not-a-traceparent' });
    send(3, event(3));
    await tick();
    await tick();
    expect(seen).toEqual([traceparent, undefined, undefined]);
  });
});
