/** Sandbox helpers of contract decisions section 6 for wallets and messages (scope sandbox; sandbox mode only). */
import type { RequestHandler } from 'express';
import { AppError } from '@platform/errors';
import type { NotifierApi, WalletRegistryApi } from '../dependencies';
import { partnerAuthOf } from '../locals';
import { presentOutboxEntry, presentWallet } from '../wallet-presenters';
import { isUuidParam } from './path-params';

/** Entries one outbox read returns at most (the newest). */
export const OUTBOX_ENTRIES_MAX = 100;

/** POST /v1/sandbox/wallets/{id}/approve → 200 the wallet, active with screening cleared. */
export function sandboxApproveWalletHandler(deps: { walletRegistry: Pick<WalletRegistryApi, 'approveWallet'> }): RequestHandler {
  return async (req, res) => {
    const walletId = req.params.id;
    if (!isUuidParam(walletId)) throw new AppError('WALLET_NOT_FOUND');
    const wallet = await deps.walletRegistry.approveWallet({ partnerId: partnerAuthOf(res).partnerId, walletId });
    res.status(200).json(presentWallet(wallet));
  };
}

/** GET /v1/sandbox/outbox → 200 the messages sent to this partner's people, newest first, codes readable. */
export function sandboxOutboxHandler(deps: { notifier: Pick<NotifierApi, 'listSandboxOutbox'> }): RequestHandler {
  return async (_req, res) => {
    const result = await deps.notifier.listSandboxOutbox({ partnerId: partnerAuthOf(res).partnerId, limit: OUTBOX_ENTRIES_MAX });
    res.status(200).json(result.entries.map(presentOutboxEntry));
  };
}
