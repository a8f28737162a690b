// Proves ledger's retention against PostgreSQL, on a scratch database migrated by
// ledger's own migrations and swept with its own rules: published outbox rows
// past OUTBOX_RETENTION_MS are deleted in batches; rows published inside it and
// unpublished rows of any age are kept; the delete walks the index it needs.
import { describeOutboxRetention } from '@platform/testing';
import { ledgerDataSource } from '../src/persistence/data-source';
import { ledgerRetentionRules } from '../src/workers/retention.worker';

describeOutboxRetention('ledger', ledgerDataSource, (outboxRetentionMs) => ledgerRetentionRules({ outboxRetentionMs }));
