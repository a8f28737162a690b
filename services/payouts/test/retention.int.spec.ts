// Proves payouts's retention against PostgreSQL, on a scratch database migrated by
// payouts's own migrations and swept with its own rules: published outbox rows
// past OUTBOX_RETENTION_MS are deleted in batches; rows published inside it and
// unpublished rows of any age are kept; the delete walks the index it needs.
import { describeOutboxRetention } from '@platform/testing';
import { payoutsDataSource } from '../src/persistence/data-source';
import { payoutsRetentionRules } from '../src/workers/retention.worker';

describeOutboxRetention('payouts', payoutsDataSource, (outboxRetentionMs) =>
  payoutsRetentionRules({ outboxRetentionMs }),
);
