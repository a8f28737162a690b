/**
 * A competing consumer of one durable queue: bounded prefetch, manual acks,
 * re-subscribed after the broker comes back. Messages are handled in batches:
 * whatever arrived while the previous batch was being handled (at most
 * `batchSizeMax`) goes to the handler at once, so one database statement and
 * one commit can serve many events. Alone, a message waits for nobody.
 *
 * Per event, the handler's success acks the message; an event it reports as
 * failed, or every event of a batch whose handler threw, is requeued after a
 * short delay (the quorum queue's delivery limit dead-letters a message that
 * keeps failing); a body that is not a bus event is rejected straight to the
 * dead-letter exchange. Acks go out in batches too: one `multiple` ack covers a
 * batch when no earlier message of the channel is still unsettled, so a
 * message waiting for its requeue is never acked by accident. Every message
 * is counted by what became of it: event_consumer_messages_total{queue,
 * outcome} with outcome acked, requeued or dead_lettered (a malformed body; a
 * message requeued past the queue's delivery limit is dead-lettered by the broker).
 * The handler gets each event with the trace context its producer wrote it in
 * (the message's W3C `traceparent` header, when valid), to continue that trace.
 */
import type { Channel, ConsumeMessage } from 'amqplib';
import type { Logger } from '@platform/logger';
import { counter, metricsRegistry, Registry } from '@platform/metrics';
import { contextFromTraceparent, currentTraceparent, TRACEPARENT } from '@platform/tracing';
import { AmqpConnection } from './amqp';
import { BusEvent, isPartnerEventType } from './catalogue';

/** A bus event as consumed: with the traceparent of the span its producer wrote it in, when the message carried a valid one. */
export type ConsumedEvent = BusEvent & { traceparent?: string };

/** Per event of a batch, in order: null when handled (acked), an Error when it must be tried again (requeued). */
export type BatchOutcome = Array<Error | null>;

export interface ConsumerOptions {
  queue: string;
  prefetch: number;
  /** Events handed to the handler at once, at most. */
  batchSizeMax: number;
  /** Declares the queue and its bindings on a fresh channel. Idempotent. */
  setup: (channel: Channel) => Promise<void>;
  handleBatch: (events: ConsumedEvent[]) => Promise<BatchOutcome>;
}

const REQUEUE_DELAY_MS = 500;
const DRAIN_POLL_MS = 50;

interface Received {
  event: ConsumedEvent;
  message: ConsumeMessage;
}

/** One subscription: its channel and the delivery tags not yet acked or rejected on it. */
interface Subscription {
  channel: Channel;
  consumerTag: string;
  unsettled: Set<number>;
  waiting: Received[];
  handling: boolean;
}

export class EventConsumer {
  private subscription: Subscription | null = null;
  private stopped = false;
  private readonly messages;

  constructor(
    private readonly amqp: AmqpConnection,
    private readonly logger: Logger,
    private readonly options: ConsumerOptions,
    registry: Registry = metricsRegistry,
  ) {
    this.messages = counter(
      {
        name: 'event_consumer_messages_total',
        help: 'Bus messages this consumer settled, by queue and outcome (acked, requeued, dead_lettered).',
        labelNames: ['queue', 'outcome'] as const,
      },
      registry,
    );
    for (const outcome of ['acked', 'requeued', 'dead_lettered'])
      this.messages.inc({ queue: options.queue, outcome }, 0);
    this.amqp.on('reconnected', () => {
      if (!this.stopped) void this.subscribe().catch((error) => this.logger.error('re-subscribe failed', { error }));
    });
  }

  async start(): Promise<void> {
    await this.subscribe();
  }

  private async subscribe(): Promise<void> {
    const channel = await this.amqp.createChannel();
    await this.options.setup(channel);
    await channel.prefetch(this.options.prefetch);
    const subscription: Subscription = { channel, consumerTag: '', unsettled: new Set(), waiting: [], handling: false };
    const { consumerTag } = await channel.consume(
      this.options.queue,
      (message) => {
        if (message) this.receive(subscription, message);
      },
      { noAck: false },
    );
    subscription.consumerTag = consumerTag;
    this.subscription = subscription;
    this.logger.info('consuming', {
      queue: this.options.queue,
      prefetch: this.options.prefetch,
      batchSizeMax: this.options.batchSizeMax,
    });
  }

  private receive(subscription: Subscription, message: ConsumeMessage): void {
    const event = parseBusEvent(message.content);
    if (!event) {
      this.logger.error('rejecting malformed event', {
        queue: this.options.queue,
        messageId: message.properties.messageId,
      });
      this.messages.inc({ queue: this.options.queue, outcome: 'dead_lettered' });
      settle(subscription, [message], (channel, settled) => channel.nack(settled, false, false));
      return;
    }
    subscription.unsettled.add(message.fields.deliveryTag);
    subscription.waiting.push({ event: withTraceparent(event, message), message });
    // Messages the broker sends in one burst arrive in the same tick: the next tick sees them all.
    if (!subscription.handling) {
      subscription.handling = true;
      setImmediate(() => void this.handleWaiting(subscription));
    }
  }

  /** Hands waiting messages to the handler, one batch at a time, until none wait. */
  private async handleWaiting(subscription: Subscription): Promise<void> {
    try {
      while (subscription.waiting.length > 0) {
        const batch = subscription.waiting.splice(0, this.options.batchSizeMax);
        await this.handleBatch(subscription, batch);
      }
    } finally {
      subscription.handling = false;
    }
  }

  private async handleBatch(subscription: Subscription, batch: Received[]): Promise<void> {
    let outcomes: BatchOutcome;
    try {
      outcomes = await this.options.handleBatch(batch.map((received) => received.event));
      if (outcomes.length !== batch.length)
        throw new Error(`handler answered ${outcomes.length} outcomes for ${batch.length} events`);
    } catch (error) {
      outcomes = batch.map(() => error as Error);
    }
    const handled = batch.filter((_, index) => outcomes[index] === null);
    const failed = batch.filter((_, index) => outcomes[index] !== null);
    ackAll(
      subscription,
      handled.map((received) => received.message),
    );
    if (handled.length > 0) this.messages.inc({ queue: this.options.queue, outcome: 'acked' }, handled.length);
    if (failed.length > 0) this.messages.inc({ queue: this.options.queue, outcome: 'requeued' }, failed.length);
    if (failed.length > 0)
      this.requeueLater(
        subscription,
        failed,
        outcomes.filter((outcome): outcome is Error => outcome !== null),
      );
  }

  private requeueLater(subscription: Subscription, failed: Received[], errors: Error[]): void {
    for (const [index, received] of failed.entries()) {
      this.logger.warn('event handling failed; requeueing', {
        eventId: received.event.id,
        type: received.event.type,
        error: errors[index]?.message,
      });
    }
    // Still unsettled until then, so no batch ack covers them meanwhile.
    setTimeout(
      () =>
        settle(
          subscription,
          failed.map((received) => received.message),
          (channel, message) => channel.nack(message, false, true),
        ),
      REQUEUE_DELAY_MS,
    );
  }

  /** Stops taking new messages and waits (bounded) for waiting and in-flight ones to be handled. */
  async stop(graceMs: number): Promise<void> {
    this.stopped = true;
    const subscription = this.subscription;
    if (!subscription) return;
    await subscription.channel.cancel(subscription.consumerTag).catch(() => undefined);
    const deadline = Date.now() + graceMs;
    while ((subscription.handling || subscription.waiting.length > 0) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
    }
    // Anything still unacked is redelivered by the broker once the channel closes.
    await subscription.channel.close().catch(() => undefined);
  }
}

/** Settles messages one by one (after the channel closed, the broker redelivers them by itself). */
function settle(
  subscription: Subscription,
  messages: ConsumeMessage[],
  action: (channel: Channel, message: ConsumeMessage) => void,
): void {
  for (const message of messages) {
    subscription.unsettled.delete(message.fields.deliveryTag);
    try {
      action(subscription.channel, message);
    } catch {
      // The channel closed: the broker redelivers unacked messages by itself.
    }
  }
}

/**
 * Acks handled messages: one `multiple` ack up to the highest tag when no
 * message below it is still unsettled on the channel, else one ack each.
 */
function ackAll(subscription: Subscription, messages: ConsumeMessage[]): void {
  if (messages.length === 0) return;
  for (const message of messages) subscription.unsettled.delete(message.fields.deliveryTag);
  const highest = messages.reduce((top, message) =>
    message.fields.deliveryTag > top.fields.deliveryTag ? message : top,
  );
  const earlierUnsettled = [...subscription.unsettled].some((tag) => tag < highest.fields.deliveryTag);
  try {
    if (earlierUnsettled) for (const message of messages) subscription.channel.ack(message);
    else subscription.channel.ack(highest, true);
  } catch {
    // The channel closed: the broker redelivers unacked messages by itself.
  }
}

/** The event with the message's traceparent, normalised (a malformed one is dropped). */
function withTraceparent(event: BusEvent, message: ConsumeMessage): ConsumedEvent {
  const traceparent = currentTraceparent(contextFromTraceparent(message.properties.headers?.[TRACEPARENT]));
  return traceparent ? { ...event, traceparent } : event;
}

export function parseBusEvent(content: Buffer): BusEvent | null {
  try {
    const value = JSON.parse(content.toString('utf8')) as Partial<BusEvent>;
    const valid =
      typeof value.id === 'string' &&
      isPartnerEventType(value.type) &&
      typeof value.createdAt === 'string' &&
      typeof value.partnerId === 'string' &&
      typeof value.data === 'object' &&
      value.data !== null;
    return valid ? (value as BusEvent) : null;
  } catch {
    return null;
  }
}
