/**
 * A service's broker connection and the outbox relay that publishes over it,
 * started together and stopped in order: the relay first, then the connection.
 * The relay connects lazily and retries, so the service serves while the
 * broker is away and its events wait in the outbox until it returns.
 */
import type { DataSource } from 'typeorm';
import type { Logger } from '@platform/logger';
import { AmqpConnection } from './amqp';
import { OutboxRelay, RelayOptions } from './relay';

export interface OutboxPublishingOptions {
  /** The `context` of the connection's log lines. */
  amqpContext: string;
  /** Starts connecting at once, in the background, rather than on the relay's first batch. */
  connectAtStart?: boolean;
  relay?: RelayOptions;
  /**
   * When set, shutdown lets the relay finish its in-flight batch this long at most, then closes the connection
   * under it (which also ends a connect attempt the relay may still be waiting on); unset, it waits for the relay.
   */
  relayDrainMsMax?: number;
}

export interface OutboxPublishing {
  relay: OutboxRelay;
  stop(): Promise<void>;
}

export function startOutboxPublishing(
  dataSource: DataSource,
  amqpUrl: string,
  logger: Logger,
  options: OutboxPublishingOptions,
): OutboxPublishing {
  const amqp = new AmqpConnection(amqpUrl, logger.child({ context: options.amqpContext }));
  if (options.connectAtStart) void amqp.connect().catch(() => undefined);
  const relay = new OutboxRelay(dataSource, amqp, logger.child({ context: 'OutboxRelay' }), options.relay);
  relay.start();
  const stop = async () => {
    const relayStopped = relay.stop();
    if (options.relayDrainMsMax !== undefined) await raceTimer(relayStopped, options.relayDrainMsMax);
    else await relayStopped;
    await amqp.close();
    await relayStopped;
  };
  return { relay, stop };
}

async function raceTimer(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const elapsed = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  await Promise.race([work, elapsed]);
  clearTimeout(timer);
}
