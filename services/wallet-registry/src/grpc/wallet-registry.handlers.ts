import type { AsyncImplementation } from '@platform/grpc';
import { walletRegistry } from '@platform/proto';
import { maskEmail } from '@platform/logger';
import type { ConfirmWalletUseCase } from '../usecases/confirm-wallet/confirm-wallet.usecase';
import type { GetCodeRecipientUseCase } from '../usecases/get-code-recipient/get-code-recipient.usecase';
import type { GetWalletStatusUseCase } from '../usecases/get-wallet-status/get-wallet-status.usecase';
import type { ListAdminsUseCase } from '../usecases/list-admins/list-admins.usecase';
import type { ListWalletsUseCase } from '../usecases/list-wallets/list-wallets.usecase';
import type { RegisterAdminUseCase } from '../usecases/register-admin/register-admin.usecase';
import type { RegisterWalletUseCase } from '../usecases/register-wallet/register-wallet.usecase';
import type { RemoveAdminUseCase } from '../usecases/remove-admin/remove-admin.usecase';
import type { RevokeWalletUseCase } from '../usecases/revoke-wallet/revoke-wallet.usecase';
import { toProtoAdmin, toProtoWallet } from './presenters';

/** Translates gRPC messages to commands; no decisions here. */
export function walletRegistryHandlers(deps: {
  registerAdmin: RegisterAdminUseCase;
  listAdmins: ListAdminsUseCase;
  removeAdmin: RemoveAdminUseCase;
  registerWallet: RegisterWalletUseCase;
  confirmWallet: ConfirmWalletUseCase;
  listWallets: ListWalletsUseCase;
  revokeWallet: RevokeWalletUseCase;
  getWalletStatus: GetWalletStatusUseCase;
  getCodeRecipient: GetCodeRecipientUseCase;
}): AsyncImplementation<typeof walletRegistry.WalletRegistryService> {
  return {
    async registerAdmin(request) {
      const { admin, created } = await deps.registerAdmin.execute(request);
      return { admin: toProtoAdmin(admin), created };
    },
    async listAdmins(request) {
      return { admins: (await deps.listAdmins.execute(request)).map(toProtoAdmin) };
    },
    async removeAdmin(request) {
      await deps.removeAdmin.execute(request);
      return {};
    },
    async registerWallet(request) {
      const result = await deps.registerWallet.execute(request);
      return {
        wallet: toProtoWallet(result.wallet),
        created: result.created,
        approvalSentTo: result.approvalSentTo,
        codeIssued: result.codeIssued,
      };
    },
    async confirmWallet(request) {
      return toProtoWallet(await deps.confirmWallet.execute(request));
    },
    async listWallets(request) {
      return { wallets: (await deps.listWallets.execute(request)).map(toProtoWallet) };
    },
    async revokeWallet(request) {
      await deps.revokeWallet.execute(request);
      return {};
    },
    async getWalletStatus(request) {
      const { wallet, active } = await deps.getWalletStatus.execute(request);
      return {
        walletId: wallet.walletId,
        status: wallet.status,
        active,
        chain: wallet.chain,
        asset: wallet.asset,
        address: wallet.address,
      };
    },
    async getCodeRecipient(request) {
      const admin = await deps.getCodeRecipient.execute(request);
      return { adminId: admin.adminId, email: admin.email, maskedEmail: maskEmail(admin.email) };
    },
  };
}
