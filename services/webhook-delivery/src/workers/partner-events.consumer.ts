/**
 * Consumes partner events from RabbitMQ and turns each into a delivery. This
 * service owns its queues and declares them at start (idempotently):
 *
 * - `partner.events` (topic, durable), where producers publish;
 * - `webhook-delivery.partner-events`: quorum, durable, bound with `#`; a message
 *   whose handling keeps failing is dead-lettered after QUEUE_DELIVERY_LIMIT tries;
 * - `partner.events.dead` (fanout, durable) and its quorum queue
 *   `webhook-delivery.partner-events.dead`, where such messages wait for operators.
 *
 * Messages are taken in batches (up to `batchSizeMax`, whatever arrived while
 * the previous batch was written): one statement and one commit create the
 * deliveries of a whole batch. A message is acked only once its delivery row
 * is committed (or it needs none), so an event is never lost between the bus
 * and the database.
 */
import {
  AmqpConnection,
  assertPartnerEventsExchange,
  ConsumerOptions,
  EventConsumer,
  PARTNER_EVENTS_EXCHANGE,
} from '@platform/events';
import type { Logger } from '@platform/logger';
import type { AcceptEventUseCase } from '../usecases/accept-event/accept-event.usecase';

export const PARTNER_EVENTS_QUEUE = 'webhook-delivery.partner-events';
export const DEAD_LETTER_EXCHANGE = 'partner.events.dead';
export const DEAD_LETTER_QUEUE = 'webhook-delivery.partner-events.dead';
/** Deliveries of one message before the broker dead-letters it. */
export const QUEUE_DELIVERY_LIMIT = 20;
const BIND_ALL_ROUTING_KEYS = '#';

type Channel = Parameters<ConsumerOptions['setup']>[0];

export async function assertWebhookDeliveryTopology(channel: Channel): Promise<void> {
  await assertPartnerEventsExchange(channel);
  await channel.assertExchange(DEAD_LETTER_EXCHANGE, 'fanout', { durable: true });
  await channel.assertQueue(DEAD_LETTER_QUEUE, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
  await channel.bindQueue(DEAD_LETTER_QUEUE, DEAD_LETTER_EXCHANGE, '');
  await channel.assertQueue(PARTNER_EVENTS_QUEUE, {
    durable: true,
    arguments: {
      'x-queue-type': 'quorum',
      'x-delivery-limit': QUEUE_DELIVERY_LIMIT,
      'x-dead-letter-exchange': DEAD_LETTER_EXCHANGE,
    },
  });
  await channel.bindQueue(PARTNER_EVENTS_QUEUE, PARTNER_EVENTS_EXCHANGE, BIND_ALL_ROUTING_KEYS);
}

export interface PartnerEventsConsumerDependencies {
  amqp: AmqpConnection;
  logger: Logger;
  prefetch: number;
  batchSizeMax: number;
  acceptEvent: AcceptEventUseCase;
  /** Called after a delivery was created, so the first attempt goes out at once. */
  onDeliveryCreated: () => void;
  /** Called after deliveries were recorded, due or held, so their events reach the feed at once. */
  onDeliveryRecorded: () => void;
}

export function createPartnerEventsConsumer(deps: PartnerEventsConsumerDependencies): EventConsumer {
  return new EventConsumer(deps.amqp, deps.logger, {
    queue: PARTNER_EVENTS_QUEUE,
    prefetch: deps.prefetch,
    batchSizeMax: deps.batchSizeMax,
    setup: assertWebhookDeliveryTopology,
    handleBatch: async (events) => {
      const results = await deps.acceptEvent.execute(events);
      if (results.includes('created')) deps.onDeliveryCreated();
      if (results.includes('created') || results.includes('no_endpoint')) deps.onDeliveryRecorded();
      return results.map((result) => (result instanceof Error ? result : null));
    },
  });
}
