/**
 * Partner events: the twelve types and their `data` shapes.
 * On RabbitMQ each event is published to the `partner.events` topic exchange
 * with the type as routing key; the body is the envelope below, which the
 * webhook worker turns into the partner's envelope by dropping `partnerId`.
 * Amounts are decimal strings. Receivers ignore unknown fields and types.
 */
export const PARTNER_EVENT_TYPES = [
  'order.funds_confirmed',
  'order.settled',
  'order.rejected',
  'order.expired',
  'credit.received',
  'transfer.settled',
  'transfer.failed',
  'usdt_send.settled',
  'usdt_send.failed',
  'usdt_credit.received',
  'collection.received',
  'confirmation.expired',
] as const;

export type PartnerEventType = (typeof PARTNER_EVENT_TYPES)[number];

export function isPartnerEventType(value: unknown): value is PartnerEventType {
  return typeof value === 'string' && (PARTNER_EVENT_TYPES as readonly string[]).includes(value);
}

export interface MoneyValue {
  currency: string;
  value: string;
}

/** credit.received: money landed in a KES account and cleared. transactionId is the idempotency anchor. */
export interface CreditReceivedData {
  transactionId: string;
  accountId: string;
  amount: MoneyValue;
  rail: string;
  reference: string | null;
  receivedAt: string;
}

/** The envelope on the bus. */
export interface BusEvent<D = Record<string, unknown>> {
  id: string;
  type: PartnerEventType;
  createdAt: string;
  partnerId: string;
  data: D;
}

export const PARTNER_EVENTS_EXCHANGE = 'partner.events';
