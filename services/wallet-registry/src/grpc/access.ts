/**
 * Who may call each wallet-registry RPC (service identities,
 * spiffe://platform/<name>), enforced by @platform/grpc before any handler
 * runs. The gateway reaches the partner's own administrators and wallets; a
 * wallet's review and a partner's settings belong to `ops`; code recipients and
 * wallet status to the services that send money. Amend an entry when a caller
 * starts or stops calling.
 */
import type { AccessTable } from '@platform/grpc';
import type { walletRegistry } from '@platform/proto';

export const WALLET_REGISTRY_ACCESS = {
  ADMIN: {
    configurePartner: ['ops'],
    reviewWallet: ['ops'],
    listAuditRecords: ['ops'],
  } satisfies AccessTable<typeof walletRegistry.WalletRegistryAdminService>,
  PARTNER: {
    registerAdmin: ['gateway'],
    listAdmins: ['gateway'],
    removeAdmin: ['gateway'],
    registerWallet: ['gateway'],
    confirmWallet: ['gateway'],
    listWallets: ['gateway'],
    revokeWallet: ['gateway'],
    getWalletStatus: ['trading', 'payouts'],
    getCodeRecipient: ['payouts'],
  } satisfies AccessTable<typeof walletRegistry.WalletRegistryService>,
  SANDBOX: { approveWallet: ['gateway'] } satisfies AccessTable<typeof walletRegistry.WalletRegistrySandboxService>,
} as const;
