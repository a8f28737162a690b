/**
 * The body a partner receives: the bus event
 * without `partnerId`, keys in the order id, type, createdAt, data. It is
 * serialised once, when the delivery is created, and the stored text is what
 * every attempt sends and signs, so retries carry byte-identical bodies.
 */
import type { BusEvent } from '@platform/events';

export interface PartnerEnvelope {
  id: string;
  type: string;
  createdAt: string;
  data: Record<string, unknown>;
}

/** Bodies above this size are a producer bug; they are refused, never truncated. */
export const BODY_BYTES_MAX = 256 * 1024;

export function toPartnerEnvelope(event: BusEvent): PartnerEnvelope {
  return { id: event.id, type: event.type, createdAt: event.createdAt, data: event.data };
}

export function serialisePartnerEnvelope(event: BusEvent): string {
  return JSON.stringify(toPartnerEnvelope(event));
}
