import { createDataSource, DataSource } from '@platform/persistence';
import { CollectionsV1Migration1732190000000 } from './migrations/1732190000000-collections-v1';
import { OutboxV1Migration1732180000000 } from './migrations/1732180000000-outbox-v1';
import { CollectionsAuditRecordsMigration1795900000000 } from './migrations/1795900000000-collections-audit-records';
import { CollectionsOutboxTraceparentMigration1796000000000 } from './migrations/1796000000000-collections-outbox-traceparent';
import { CollectionsStatusListingMigration1796750000000 } from './migrations/1796750000000-collections-status-listing';
import { CollectionsOutboxRetentionIndexMigration1797200000000 } from './migrations/1797200000000-collections-outbox-retention-index';

export const SERVICE_NAME = 'collections';

export function collectionsDataSource(url: string): DataSource {
  return createDataSource({
    url,
    applicationName: SERVICE_NAME,
    migrations: [
      OutboxV1Migration1732180000000,
      CollectionsV1Migration1732190000000,
      CollectionsAuditRecordsMigration1795900000000,
      CollectionsOutboxTraceparentMigration1796000000000,
      CollectionsStatusListingMigration1796750000000,
      CollectionsOutboxRetentionIndexMigration1797200000000,
    ],
  });
}
