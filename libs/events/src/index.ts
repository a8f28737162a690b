export * from './catalogue';
export {
  enqueueEvent,
  OUTBOX_TABLE_V1_SQL,
  OUTBOX_TABLE_V1_DOWN_SQL,
  OUTBOX_TRACEPARENT_V2_SQL,
  OUTBOX_TRACEPARENT_V2_DOWN_SQL,
  OUTBOX_PUBLISHED_INDEX_SQL,
  OUTBOX_PUBLISHED_INDEX_DOWN_SQL,
  outboxRetentionRule,
} from './outbox';
export type { NewEvent } from './outbox';
export { AmqpConnection, assertPartnerEventsExchange } from './amqp';
export { OutboxRelay, OUTBOX_COUNTED_MAX } from './relay';
export { RelayMetrics } from './relay-metrics';
export type { OutboxLag, RelayOptions } from './relay';
export { EventConsumer, parseBusEvent } from './consumer';
export type { ConsumedEvent, ConsumerOptions } from './consumer';
export { startOutboxPublishing } from './outbox-publishing';
export type { OutboxPublishing, OutboxPublishingOptions } from './outbox-publishing';
