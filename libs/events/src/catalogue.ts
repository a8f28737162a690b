/**
 * Partner events: the twelve types and their `data` shapes.
 * On RabbitMQ each event is published to the `partner.events` topic exchange
 * with the type as routing key; the body is the envelope below, which the
 * webhook worker turns into the partner's envelope by dropping `partnerId`.
 * Amounts are decimal strings. Receivers ignore unknown fields and types.
 */
import { WEBHOOK_EVENT_TYPES } from '@platform/openapi/dist/contract/event-types';

/** The partner contract states the types (its feed filter and webhook documentation read the same list). */
export const PARTNER_EVENT_TYPES = WEBHOOK_EVENT_TYPES;

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
