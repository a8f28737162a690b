/**
 * Who may call each webhook-delivery RPC (service identities,
 * spiffe://platform/<name>), enforced by @platform/grpc before any handler
 * runs. Every one is an operator action: endpoints and secrets are set, and
 * deliveries listed and replayed, by `ops` alone; the gateway reaches none.
 */
import type { AccessTable } from '@platform/grpc';
import type { webhookDelivery } from '@platform/proto';

export const WEBHOOK_DELIVERY_ACCESS = {
  ADMIN: {
    setEndpoint: ['ops'],
    listDeliveries: ['ops'],
    replayDelivery: ['ops'],
    replayDeliveries: ['ops'],
    resealSecrets: ['ops'],
    listAuditRecords: ['ops'],
  } satisfies AccessTable<typeof webhookDelivery.WebhookAdminService>,
} as const;
