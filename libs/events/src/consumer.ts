/**
 * A competing consumer of one durable queue: bounded prefetch, manual acks,
 * re-subscribed after the broker comes back. The handler's success acks the
 * message; a thrown error requeues it (the quorum queue's delivery limit
 * dead-letters a message that keeps failing); a body that is not a bus event
 * is rejected straight to the dead-letter exchange.
 */
import type { Channel, ConsumeMessage } from 'amqplib';
import type { Logger } from '@platform/logger';
import { AmqpConnection } from './amqp';
import { BusEvent, isPartnerEventType } from './catalogue';

export interface ConsumerOptions {
  queue: string;
  prefetch: number;
  /** Declares the queue and its bindings on a fresh channel. Idempotent. */
  setup: (channel: Channel) => Promise<void>;
  handler: (event: BusEvent, message: ConsumeMessage) => Promise<void>;
}

const REQUEUE_DELAY_MS = 500;

export class EventConsumer {
  private channel: Channel | null = null;
  private consumerTag: string | null = null;
  private stopped = false;
  private inFlight = 0;

  constructor(private readonly amqp: AmqpConnection, private readonly logger: Logger, private readonly options: ConsumerOptions) {
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
    const { consumerTag } = await channel.consume(this.options.queue, (message) => {
      if (message) void this.handle(channel, message);
    }, { noAck: false });
    this.channel = channel;
    this.consumerTag = consumerTag;
    this.logger.info('consuming', { queue: this.options.queue, prefetch: this.options.prefetch });
  }

  private async handle(channel: Channel, message: ConsumeMessage): Promise<void> {
    const event = parseBusEvent(message.content);
    if (!event) {
      this.logger.error('rejecting malformed event', { queue: this.options.queue, messageId: message.properties.messageId });
      channel.nack(message, false, false);
      return;
    }
    this.inFlight += 1;
    try {
      await this.options.handler(event, message);
      channel.ack(message);
    } catch (error) {
      this.logger.warn('event handling failed; requeueing', { eventId: event.id, type: event.type, error: (error as Error).message });
      await new Promise((resolve) => setTimeout(resolve, REQUEUE_DELAY_MS));
      try {
        channel.nack(message, false, true);
      } catch {
        // The channel closed: the broker redelivers unacked messages by itself.
      }
    } finally {
      this.inFlight -= 1;
    }
  }

  /** Stops taking new messages and waits (bounded) for in-flight ones to finish. */
  async stop(graceMs: number): Promise<void> {
    this.stopped = true;
    if (this.channel && this.consumerTag) await this.channel.cancel(this.consumerTag).catch(() => undefined);
    const deadline = Date.now() + graceMs;
    while (this.inFlight > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    await this.channel?.close().catch(() => undefined);
  }
}

export function parseBusEvent(content: Buffer): BusEvent | null {
  try {
    const value = JSON.parse(content.toString('utf8')) as Partial<BusEvent>;
    const valid =
      typeof value.id === 'string' && isPartnerEventType(value.type) && typeof value.createdAt === 'string' &&
      typeof value.partnerId === 'string' && typeof value.data === 'object' && value.data !== null;
    return valid ? (value as BusEvent) : null;
  } catch {
    return null;
  }
}
