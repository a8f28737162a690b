import { createDataSource, DataSource } from '@platform/persistence';
import { PartnerSettingsV1Migration1732170000000 } from './migrations/1732170000000-partner-settings-v1';
import { AdminsWalletsV1Migration1732190000000 } from './migrations/1732190000000-admins-wallets-v1';
import { AdminWaitingAndNoticesMigration1733100000000 } from './migrations/1733100000000-admin-waiting-and-notices';
import { WalletRegistryAuditRecordsMigration1795900000000 } from './migrations/1795900000000-wallet-registry-audit-records';

export const SERVICE_NAME = 'wallet-registry';

export function walletRegistryDataSource(url: string): DataSource {
  return createDataSource({
    url,
    applicationName: SERVICE_NAME,
    migrations: [
      PartnerSettingsV1Migration1732170000000,
      AdminsWalletsV1Migration1732190000000,
      AdminWaitingAndNoticesMigration1733100000000,
      WalletRegistryAuditRecordsMigration1795900000000,
    ],
  });
}
