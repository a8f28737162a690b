import { createDataSource, DataSource } from '@platform/persistence';
import { LedgerV1Migration1732170000000 } from './migrations/1732170000000-ledger-v1';
import { LedgerHoldsMigration1732260000000 } from './migrations/1732260000000-ledger-holds';
import { LedgerFundingMigration1732260000001 } from './migrations/1732260000001-ledger-funding';
import { LedgerUsdtDepositsMigration1732260000002 } from './migrations/1732260000002-ledger-usdt-deposits';
import { LedgerPaymentReferencesMigration1732260000003 } from './migrations/1732260000003-ledger-payment-references';
import { LedgerAuditRecordsMigration1795900000000 } from './migrations/1795900000000-ledger-audit-records';
import { LedgerHoldOwnersMigration1795917000000 } from './migrations/1795917000000-ledger-hold-owners';
import { LedgerStatementLinesMigration1796000000000 } from './migrations/1796000000000-ledger-statement-lines';
import { LedgerOutboxTraceparentMigration1796000000001 } from './migrations/1796000000001-ledger-outbox-traceparent';
import { LedgerStatementLinesOneReadMigration1796000000002 } from './migrations/1796000000002-ledger-statement-lines-one-read';
import { LedgerUsdtDepositExpectationsMigration1796100000000 } from './migrations/1796100000000-ledger-usdt-deposit-expectations';
import { LedgerServiceAccountShardsMigration1797000000000 } from './migrations/1797000000000-ledger-service-account-shards';
import { LedgerStatementTriggerPartnerPostingsMigration1797000000001 } from './migrations/1797000000001-ledger-statement-trigger-partner-postings';
import { LedgerOutboxRetentionIndexMigration1797200000000 } from './migrations/1797200000000-ledger-outbox-retention-index';
import { LedgerPlaceHoldOneStatementMigration1797800000000 } from './migrations/1797800000000-ledger-place-hold-one-statement';
import { LedgerPostingsHeldAfterMigration1798200000000 } from './migrations/1798200000000-ledger-postings-held-after';
import { LedgerStatementLinesPresentedMigration1799100000000 } from './migrations/1799100000000-ledger-statement-lines-presented';

export const SERVICE_NAME = 'ledger';

export function ledgerDataSource(url: string): DataSource {
  return createDataSource({
    url,
    applicationName: SERVICE_NAME,
    migrations: [
      LedgerV1Migration1732170000000,
      LedgerHoldsMigration1732260000000,
      LedgerFundingMigration1732260000001,
      LedgerUsdtDepositsMigration1732260000002,
      LedgerPaymentReferencesMigration1732260000003,
      LedgerAuditRecordsMigration1795900000000,
      LedgerHoldOwnersMigration1795917000000,
      LedgerStatementLinesMigration1796000000000,
      LedgerOutboxTraceparentMigration1796000000001,
      LedgerStatementLinesOneReadMigration1796000000002,
      LedgerUsdtDepositExpectationsMigration1796100000000,
      LedgerServiceAccountShardsMigration1797000000000,
      LedgerStatementTriggerPartnerPostingsMigration1797000000001,
      LedgerOutboxRetentionIndexMigration1797200000000,
      LedgerPlaceHoldOneStatementMigration1797800000000,
      LedgerPostingsHeldAfterMigration1798200000000,
      LedgerStatementLinesPresentedMigration1799100000000,
    ],
  });
}
