/**
 * One AMQP connection per process, re-established with bounded backoff when
 * the broker goes away. Channels are created on demand from the current
 * connection; users re-create theirs after `reconnected`.
 */
import { EventEmitter } from 'node:events';
import amqp, { Channel, ChannelModel, ConfirmChannel } from 'amqplib';
import type { Logger } from '@platform/logger';
import { PARTNER_EVENTS_EXCHANGE } from './catalogue';

const RECONNECT_DELAY_MS_MAX = 5_000;
const CONNECT_TIMEOUT_MS = 5_000;
const HEARTBEAT_SECONDS = 15;
/**
 * amqplib leaves Nagle's algorithm on unless told. It writes a message of more than
 * 2 KiB (method, header and body frames) as two writes, and the kernel then holds the
 * second until the broker acknowledges the first: a delayed ACK, about 40 ms for every
 * publish, batch or confirm wait that includes one. Every write goes out at once instead.
 */
const SOCKET_OPTIONS = { timeout: CONNECT_TIMEOUT_MS, heartbeat: HEARTBEAT_SECONDS, noDelay: true };

export class AmqpConnection extends EventEmitter {
  private connection: ChannelModel | null = null;
  private closing = false;
  private connecting: Promise<ChannelModel> | null = null;

  constructor(private readonly url: string, private readonly logger: Logger) {
    super();
  }

  isConnected(): boolean {
    return this.connection !== null;
  }

  /** Resolves once connected; retries until it succeeds or close() is called. */
  async connect(): Promise<ChannelModel> {
    if (this.connection) return this.connection;
    if (!this.connecting) this.connecting = this.connectWithRetry().finally(() => (this.connecting = null));
    return this.connecting;
  }

  private async connectWithRetry(): Promise<ChannelModel> {
    for (let attempt = 1; !this.closing; attempt += 1) {
      try {
        const connection = await amqp.connect(this.url, SOCKET_OPTIONS as never);
        connection.on('error', (error) => this.logger.warn('amqp connection error', { error: error.message }));
        connection.on('close', () => this.onClosed());
        this.connection = connection;
        if (attempt > 1) this.logger.info('amqp reconnected', { attempt });
        this.emit('connected', connection);
        return connection;
      } catch (error) {
        const delayMs = Math.min(RECONNECT_DELAY_MS_MAX, 100 * 2 ** Math.min(attempt, 6));
        if (attempt === 1 || attempt % 10 === 0) this.logger.warn('amqp connect failed; retrying', { attempt, delayMs, error: (error as Error).message });
        await new Promise((resolve) => setTimeout(resolve, delayMs));
      }
    }
    throw new Error('amqp connection closed');
  }

  private onClosed(): void {
    this.connection = null;
    if (this.closing) return;
    this.logger.warn('amqp connection closed; reconnecting');
    this.emit('disconnected');
    void this.connect().then(() => this.emit('reconnected'), () => undefined);
  }

  async createConfirmChannel(): Promise<ConfirmChannel> {
    const connection = await this.connect();
    const channel = await connection.createConfirmChannel();
    channel.on('error', (error: Error) => this.logger.warn('amqp channel error', { error: error.message }));
    return channel;
  }

  async createChannel(): Promise<Channel> {
    const connection = await this.connect();
    const channel = await connection.createChannel();
    channel.on('error', (error: Error) => this.logger.warn('amqp channel error', { error: error.message }));
    return channel;
  }

  async close(): Promise<void> {
    this.closing = true;
    const connection = this.connection;
    this.connection = null;
    if (connection) await connection.close().catch(() => undefined);
  }
}

/** Declares the exchange every producer publishes to. Idempotent. */
export async function assertPartnerEventsExchange(channel: Channel): Promise<void> {
  await channel.assertExchange(PARTNER_EVENTS_EXCHANGE, 'topic', { durable: true });
}
