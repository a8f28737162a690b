import { createDataSource, DataSource } from '@platform/persistence';
import { WebhookDeliveryV1Migration1732400000000 } from './migrations/1732400000000-webhook-delivery-v1';
import { WebhookDeliveryReplayMigration1732500000000 } from './migrations/1732500000000-webhook-delivery-replay';
import { WebhookDeliveryAuditRecordsMigration1795900000000 } from './migrations/1795900000000-webhook-delivery-audit-records';
import { WebhookDeliveryTraceparentMigration1796000000000 } from './migrations/1796000000000-webhook-delivery-traceparent';
import { WebhookDeliveryEventFeedMigration1796400000000 } from './migrations/1796400000000-webhook-delivery-event-feed';
import { WebhookDeliveryFeedAssignFunctionMigration1796500000000 } from './migrations/1796500000000-webhook-delivery-feed-assign-function';
import { WebhookDeliveryPartnerStatusListingMigration1796700000000 } from './migrations/1796700000000-webhook-delivery-partner-status-listing';
import { WebhookDeliveryRetentionIndexesMigration1797200000000 } from './migrations/1797200000000-webhook-delivery-retention-indexes';
import { WebhookDeliveryWeeklyPartitionsMigration1797500000000 } from './migrations/1797500000000-webhook-delivery-weekly-partitions';
import { WebhookDeliveryBoundedPartitionsMigration1798400000000 } from './migrations/1798400000000-webhook-delivery-bounded-partitions';
import { WebhookDeliveryOrderedClaimMigration1799874000000 } from './migrations/1799874000000-webhook-delivery-ordered-claim';
import { WebhookDeliveryPartnerClaimMigration1799875000000 } from './migrations/1799875000000-webhook-delivery-partner-claim';

export const SERVICE_NAME = 'webhook-delivery';

export function webhookDeliveryDataSource(url: string): DataSource {
  return createDataSource({
    url,
    applicationName: SERVICE_NAME,
    migrations: [
      WebhookDeliveryV1Migration1732400000000,
      WebhookDeliveryReplayMigration1732500000000,
      WebhookDeliveryAuditRecordsMigration1795900000000,
      WebhookDeliveryTraceparentMigration1796000000000,
      WebhookDeliveryEventFeedMigration1796400000000,
      WebhookDeliveryFeedAssignFunctionMigration1796500000000,
      WebhookDeliveryPartnerStatusListingMigration1796700000000,
      WebhookDeliveryRetentionIndexesMigration1797200000000,
      WebhookDeliveryWeeklyPartitionsMigration1797500000000,
      WebhookDeliveryBoundedPartitionsMigration1798400000000,
      WebhookDeliveryOrderedClaimMigration1799874000000,
      WebhookDeliveryPartnerClaimMigration1799875000000,
    ],
  });
}
