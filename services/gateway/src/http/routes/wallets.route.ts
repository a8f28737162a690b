/** Withdrawal addresses (scope wallets for writes, read for GET). */
import type { WalletRegistryApi } from '../dependencies';
import { presentRegisteredWallet, presentWallet } from '../wallet-presenters';
import type { OperationHandler } from './operation';

/** POST /v1/wallets → 201 a new registration, 200 an existing one. */
export function registerWalletHandler(deps: {
  walletRegistry: Pick<WalletRegistryApi, 'registerWallet'>;
}): OperationHandler<'registerWallet'> {
  return async ({ partnerId, body }, res) => {
    const result = await deps.walletRegistry.registerWallet({
      partnerId,
      chain: body.chain,
      asset: body.asset,
      address: body.address,
      label: body.label ?? '',
    });
    res.status(result.created ? 201 : 200).json(presentRegisteredWallet(result));
  };
}

/** GET /v1/wallets → 200 the partner's wallets, newest first (revoked ones are gone). */
export function listWalletsHandler(deps: {
  walletRegistry: Pick<WalletRegistryApi, 'listWallets'>;
}): OperationHandler<'listWallets'> {
  return async ({ partnerId }, res) => {
    const result = await deps.walletRegistry.listWallets({ partnerId });
    res.status(200).json(result.wallets.map(presentWallet));
  };
}

/** POST /v1/wallets/{id}/confirm → 200 the wallet, now pending_service_approval. */
export function confirmWalletHandler(deps: {
  walletRegistry: Pick<WalletRegistryApi, 'confirmWallet'>;
}): OperationHandler<'confirmWallet'> {
  return async ({ partnerId, params, body }, res) => {
    const wallet = await deps.walletRegistry.confirmWallet({ partnerId, walletId: params.id, otp: body.otp });
    res.status(200).json(presentWallet(wallet));
  };
}

/** DELETE /v1/wallets/{id} → 204; immediate and irreversible. */
export function revokeWalletHandler(deps: {
  walletRegistry: Pick<WalletRegistryApi, 'revokeWallet'>;
}): OperationHandler<'revokeWallet'> {
  return async ({ partnerId, params }, res) => {
    await deps.walletRegistry.revokeWallet({ partnerId, walletId: params.id });
    res.status(204).end();
  };
}
