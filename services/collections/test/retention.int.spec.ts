// Proves collections's retention against PostgreSQL, on a scratch database migrated by
// collections's own migrations and swept with its own rules: published outbox rows
// past OUTBOX_RETENTION_MS are deleted in batches; rows published inside it and
// unpublished rows of any age are kept; the delete walks the index it needs.
import { describeOutboxRetention } from '@platform/testing';
import { collectionsDataSource } from '../src/persistence/data-source';
import { collectionsRetentionRules } from '../src/workers/retention.worker';

describeOutboxRetention('collections', collectionsDataSource, (outboxRetentionMs) =>
  collectionsRetentionRules({ outboxRetentionMs }),
);
