/**
 * Who may call each webhook-delivery RPC (service identities,
 * spiffe://platform/<name>), enforced by @platform/grpc before any handler
 * runs. The admin RPCs are operator actions: endpoints and secrets are set, and
 * deliveries listed and replayed, by `ops` alone. The partner RPCs (the events
 * feed, a partner's own deliveries and their retry) serve the partner plane,
 * so the gateway alone calls them, always naming the partner it authenticated.
 */
import type { AccessTable } from '@platform/grpc';
import type { webhookDelivery, webhookDeliveryPartnerFeed } from '@platform/proto';

export const WEBHOOK_DELIVERY_ACCESS = {
  ADMIN: {
    setEndpoint: ['ops'],
    listDeliveries: ['ops'],
    replayDelivery: ['ops'],
    replayDeliveries: ['ops'],
    resealSecrets: ['ops'],
    listAuditRecords: ['ops'],
  } satisfies AccessTable<typeof webhookDelivery.WebhookAdminService>,
  PARTNER: {
    listEvents: ['gateway'],
    listPartnerDeliveries: ['gateway'],
    retryDelivery: ['gateway'],
  } satisfies AccessTable<typeof webhookDeliveryPartnerFeed.WebhookPartnerService>,
} as const;
