import type { walletRegistry } from '@platform/proto';
import { nextStepFor, Wallet } from '../domain/wallet';
import type { Administrator } from '../persistence/administrators.repository';

/** Domain records → proto messages; timestamps ISO 8601 UTC with milliseconds. */
export function toProtoWallet(wallet: Wallet): walletRegistry.Wallet {
  return {
    walletId: wallet.walletId,
    chain: wallet.chain,
    asset: wallet.asset,
    address: wallet.address,
    label: wallet.label,
    status: wallet.status,
    screeningStatus: wallet.screeningStatus,
    createdAt: wallet.createdAt.toISOString(),
    nextStep: nextStepFor(wallet.status),
  };
}

export function toProtoAdmin(admin: Administrator): walletRegistry.Administrator {
  return {
    adminId: admin.adminId,
    email: admin.email,
    name: admin.name,
    status: admin.status,
    createdAt: admin.createdAt.toISOString(),
  };
}
