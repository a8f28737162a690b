import { createDataSource, DataSource } from '@platform/persistence';
import { OutboxV1Migration1732180000000 } from './migrations/1732180000000-outbox-v1';
import { PayoutInstructionsMigration1732600000000 } from './migrations/1732600000000-payout-instructions';
import { TransfersMigration1732700000000 } from './migrations/1732700000000-transfers';
import { UsdtSendsMigration1732800000000 } from './migrations/1732800000000-usdt-sends';
import { TransferBatchesMigration1732900000000 } from './migrations/1732900000000-transfer-batches';
import { MobileMoneyPushesMigration1733000000000 } from './migrations/1733000000000-mobile-money-pushes';
import { TransfersPartnerListingMigration1733010000000 } from './migrations/1733010000000-transfers-partner-listing';
import { WrongCodeBudgetsMigration1733100000000 } from './migrations/1733100000000-wrong-code-budgets';
import { PartnerListingsMigration1733200000000 } from './migrations/1733200000000-partner-listings';
import { PayoutsOutboxTraceparentMigration1796000000000 } from './migrations/1796000000000-payouts-outbox-traceparent';
import { PayoutsPartnerFilteredListingsMigration1796700000000 } from './migrations/1796700000000-payouts-partner-filtered-listings';
import { PayoutsOutboxRetentionIndexMigration1797200000000 } from './migrations/1797200000000-payouts-outbox-retention-index';
import { UsdtSendDecidedFailureMigration1797950000000 } from './migrations/1797950000000-usdt-send-decided-failure';
import { ConfirmationCodeIssueMigration1798900000000 } from './migrations/1798900000000-confirmation-code-issue';

export const SERVICE_NAME = 'payouts';

export function payoutsDataSource(url: string): DataSource {
  return createDataSource({
    url,
    applicationName: SERVICE_NAME,
    migrations: [
      OutboxV1Migration1732180000000,
      PayoutInstructionsMigration1732600000000,
      TransfersMigration1732700000000,
      UsdtSendsMigration1732800000000,
      TransferBatchesMigration1732900000000,
      MobileMoneyPushesMigration1733000000000,
      TransfersPartnerListingMigration1733010000000,
      WrongCodeBudgetsMigration1733100000000,
      PartnerListingsMigration1733200000000,
      PayoutsOutboxTraceparentMigration1796000000000,
      PayoutsPartnerFilteredListingsMigration1796700000000,
      PayoutsOutboxRetentionIndexMigration1797200000000,
      UsdtSendDecidedFailureMigration1797950000000,
      ConfirmationCodeIssueMigration1798900000000,
    ],
  });
}
