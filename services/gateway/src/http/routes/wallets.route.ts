/** Withdrawal addresses (spec section 4; scope wallets for writes, read for GET). */
import type { RequestHandler } from 'express';
import { isValidTronAddress } from '@platform/chain';
import { AppError } from '@platform/errors';
import { z } from 'zod';
import type { WalletRegistryApi } from '../dependencies';
import { partnerAuthOf, rawBodyOf } from '../locals';
import { presentRegisteredWallet, presentWallet } from '../wallet-presenters';
import { parseJsonObject, validateBody } from '../validation';
import { isUuidParam } from './path-params';

const LABEL_LENGTH_MAX = 100;

export const walletRequestSchema = z.object({
  chain: z.literal('tron'),
  asset: z.literal('USDT'),
  address: z.string().refine(isValidTronAddress),
  /** Additive: the partner's own name for the address. */
  label: z.string().max(LABEL_LENGTH_MAX).regex(/^[^\u0000-\u001f\u007f-\u009f\u2028\u2029]*$/).optional(),
}).strict();

// A malformed code is refused as a request error and never counted as a guess.
export const confirmRequestSchema = z.object({ otp: z.string().regex(/^\d{6}$/) }).strict();

/** POST /v1/wallets → 201 a new registration, 200 an existing one (contract decisions section 9). */
export function registerWalletHandler(deps: { walletRegistry: Pick<WalletRegistryApi, 'registerWallet'> }): RequestHandler {
  return async (req, res) => {
    const body = validateBody(walletRequestSchema, parseJsonObject(rawBodyOf(res), req.headers['content-type']));
    const result = await deps.walletRegistry.registerWallet({
      partnerId: partnerAuthOf(res).partnerId,
      chain: body.chain,
      asset: body.asset,
      address: body.address,
      label: body.label ?? '',
    });
    res.status(result.created ? 201 : 200).json(presentRegisteredWallet(result));
  };
}

/** GET /v1/wallets → 200 the partner's wallets, newest first (revoked ones are gone). */
export function listWalletsHandler(deps: { walletRegistry: Pick<WalletRegistryApi, 'listWallets'> }): RequestHandler {
  return async (_req, res) => {
    const result = await deps.walletRegistry.listWallets({ partnerId: partnerAuthOf(res).partnerId });
    res.status(200).json(result.wallets.map(presentWallet));
  };
}

/** POST /v1/wallets/{id}/confirm → 200 the wallet, now pending_service_approval. */
export function confirmWalletHandler(deps: { walletRegistry: Pick<WalletRegistryApi, 'confirmWallet'> }): RequestHandler {
  return async (req, res) => {
    const walletId = req.params.id;
    const body = validateBody(confirmRequestSchema, parseJsonObject(rawBodyOf(res), req.headers['content-type']));
    if (!isUuidParam(walletId)) throw new AppError('WALLET_NOT_FOUND');
    const wallet = await deps.walletRegistry.confirmWallet({ partnerId: partnerAuthOf(res).partnerId, walletId, otp: body.otp });
    res.status(200).json(presentWallet(wallet));
  };
}

/** DELETE /v1/wallets/{id} → 204; immediate and irreversible. */
export function revokeWalletHandler(deps: { walletRegistry: Pick<WalletRegistryApi, 'revokeWallet'> }): RequestHandler {
  return async (req, res) => {
    const walletId = req.params.id;
    if (!isUuidParam(walletId)) throw new AppError('WALLET_NOT_FOUND');
    await deps.walletRegistry.revokeWallet({ partnerId: partnerAuthOf(res).partnerId, walletId });
    res.status(204).end();
  };
}
