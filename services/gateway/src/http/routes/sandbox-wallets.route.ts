/** Sandbox helpers for wallets and messages (scope sandbox; sandbox mode only). */
import type { NotifierApi, WalletRegistryApi } from '../dependencies';
import { presentOutboxEntry, presentWallet } from '../wallet-presenters';
import type { OperationHandler } from './operation';

/** Entries one outbox read returns at most (the newest). */
export const OUTBOX_ENTRIES_MAX = 100;

/** POST /v1/sandbox/wallets/{id}/approve → 200 the wallet, active with screening cleared. */
export function sandboxApproveWalletHandler(deps: {
  walletRegistry: Pick<WalletRegistryApi, 'approveWallet'>;
}): OperationHandler<'sandboxApproveWallet'> {
  return async ({ partnerId, params }, res) => {
    res.status(200).json(presentWallet(await deps.walletRegistry.approveWallet({ partnerId, walletId: params.id })));
  };
}

/** GET /v1/sandbox/outbox → 200 the messages sent to this partner's people, newest first, codes readable. */
export function sandboxOutboxHandler(deps: {
  notifier: Pick<NotifierApi, 'listSandboxOutbox'>;
}): OperationHandler<'sandboxOutbox'> {
  return async ({ partnerId }, res) => {
    const result = await deps.notifier.listSandboxOutbox({ partnerId, limit: OUTBOX_ENTRIES_MAX });
    res.status(200).json(result.entries.map(presentOutboxEntry));
  };
}
