/**
 * One AMQP connection per process, re-established with bounded backoff when
 * the broker goes away. Channels are created on demand from the current
 * connection; users re-create theirs after `reconnected`. Its state is a
 * metric: amqp_connection_up (1 while connected), amqp_channels_open, and
 * amqp_connection_losses_total (closed by the broker or the network, not by us).
 */
import { EventEmitter } from 'node:events';
import amqp, { Channel, ChannelModel, ConfirmChannel } from 'amqplib';
import type { Logger } from '@platform/logger';
import { counter, gauge, metricsRegistry, Registry } from '@platform/metrics';
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

function connectionMetrics(registry: Registry) {
  return {
    up: gauge(
      {
        name: 'amqp_connection_up',
        help: 'RabbitMQ connection of this process: 1 while connected, 0 while not (a relay connects once it has events to publish; away or reconnecting).',
      },
      registry,
    ),
    channels: gauge(
      {
        name: 'amqp_channels_open',
        help: "RabbitMQ channels open on this process's connection (publishing and consuming).",
      },
      registry,
    ),
    losses: counter(
      {
        name: 'amqp_connection_losses_total',
        help: 'RabbitMQ connections lost (closed by the broker or the network), each followed by reconnecting.',
      },
      registry,
    ),
  };
}

export class AmqpConnection extends EventEmitter {
  private connection: ChannelModel | null = null;
  private closing = false;
  private connecting: Promise<ChannelModel> | null = null;
  private readonly metrics: ReturnType<typeof connectionMetrics>;

  constructor(
    private readonly url: string,
    private readonly logger: Logger,
    registry: Registry = metricsRegistry,
  ) {
    super();
    this.metrics = connectionMetrics(registry);
    this.metrics.up.set(0);
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
        this.metrics.up.set(1);
        if (attempt > 1) this.logger.info('amqp reconnected', { attempt });
        this.emit('connected', connection);
        return connection;
      } catch (error) {
        const delayMs = Math.min(RECONNECT_DELAY_MS_MAX, 100 * 2 ** Math.min(attempt, 6));
        if (attempt === 1 || attempt % 10 === 0)
          this.logger.warn('amqp connect failed; retrying', { attempt, delayMs, error: (error as Error).message });
        await new Promise((resolve) => setTimeout(resolve, delayMs));
      }
    }
    throw new Error('amqp connection closed');
  }

  private onClosed(): void {
    this.connection = null;
    this.metrics.up.set(0);
    if (this.closing) return;
    this.metrics.losses.inc();
    this.logger.warn('amqp connection closed; reconnecting');
    this.emit('disconnected');
    void this.connect().then(
      () => this.emit('reconnected'),
      () => undefined,
    );
  }

  async createConfirmChannel(): Promise<ConfirmChannel> {
    const connection = await this.connect();
    return this.tracked(await connection.createConfirmChannel());
  }

  async createChannel(): Promise<Channel> {
    const connection = await this.connect();
    return this.tracked(await connection.createChannel());
  }

  /** Logs the channel's errors and counts it open until it closes (alone, or with its connection). */
  private tracked<C extends Channel>(channel: C): C {
    channel.on('error', (error: Error) => this.logger.warn('amqp channel error', { error: error.message }));
    this.metrics.channels.inc();
    channel.once('close', () => this.metrics.channels.dec());
    return channel;
  }

  async close(): Promise<void> {
    this.closing = true;
    const connection = this.connection;
    this.connection = null;
    this.metrics.up.set(0);
    if (connection) await connection.close().catch(() => undefined);
  }
}

/** Declares the exchange every producer publishes to. Idempotent. */
export async function assertPartnerEventsExchange(channel: Channel): Promise<void> {
  await channel.assertExchange(PARTNER_EVENTS_EXCHANGE, 'topic', { durable: true });
}
