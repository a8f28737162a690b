/**
 * A delivery's status as its partner sees it. Internally a delivery waiting
 * for its next attempt and one whose attempt is in flight differ only by a
 * lease; to the partner what matters is whether attempts have failed yet:
 *
 * - `pending`: open, no attempt of this round has failed yet;
 * - `failing`: open, attempts of this round failed, more are scheduled;
 * - `delivered`, `dead`: closed;
 * - `held`: the event came before the partner had an endpoint.
 */
// The partner contract states both lists; its light module loads no zod.
import {
  WEBHOOK_DELIVERY_FILTERS as PARTNER_DELIVERY_FILTERS,
  WEBHOOK_DELIVERY_STATUSES as PARTNER_DELIVERY_STATUSES,
  type WebhookDeliveryFilter as PartnerDeliveryFilter,
  type WebhookDeliveryStatus as PartnerDeliveryStatus,
} from '@platform/openapi/dist/contract/statuses';
import type { DeliveryStatus } from './delivery-status';

export { PARTNER_DELIVERY_FILTERS, PARTNER_DELIVERY_STATUSES, type PartnerDeliveryFilter, type PartnerDeliveryStatus };

export function isPartnerDeliveryFilter(value: string): value is PartnerDeliveryFilter {
  return (PARTNER_DELIVERY_FILTERS as readonly string[]).includes(value);
}

export function partnerStatusOf(status: DeliveryStatus, attemptCount: number): PartnerDeliveryStatus {
  switch (status) {
    case 'pending':
    case 'delivering':
      return attemptCount > 0 ? 'failing' : 'pending';
    case 'no_endpoint':
      return 'held';
    case 'delivered':
    case 'dead':
      return status;
  }
}

/** The SQL condition on `deliveries` matching a filter (constant text, no parameters). */
export function filterCondition(filter: PartnerDeliveryFilter): string {
  switch (filter) {
    case 'delivered':
      return "status = 'delivered'";
    case 'dead':
      return "status = 'dead'";
    case 'failing':
      return "status IN ('pending', 'delivering') AND attempt_count > 0";
  }
}
