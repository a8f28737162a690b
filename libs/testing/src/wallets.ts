/**
 * A partner's USDT wallet on TRON, registered through the gateway as a partner registers one: a fresh
 * random address, then (unless only the registration is wanted) the administrator's e-mailed code and
 * the sandbox review's approval, so the wallet is active and may receive a send or a buy's USDT.
 */
import { randomBytes } from 'node:crypto';
import { tronAddressFromAccountId } from '@platform/chain';
import type { HttpResult, PartnerHttpClient } from './http-client';
import { sandboxCode } from './sandbox-outbox';

/** `registered`: awaiting its code (not yet usable); `active`: through both approvals. */
export type WalletStage = 'registered' | 'active';

function expectStatus(result: HttpResult, status: number, what: string): void {
  if (result.status !== status)
    throw new Error(`${what} answered ${result.status}, not ${status}: ${JSON.stringify(result.body)}`);
}

/** Registers a wallet at a new address and takes it to `stage`; answers its id. */
export async function partnerWallet(http: PartnerHttpClient, stage: WalletStage = 'active'): Promise<string> {
  const registered = await http.post('/v1/wallets', {
    chain: 'tron',
    asset: 'USDT',
    address: tronAddressFromAccountId(randomBytes(20)),
  });
  expectStatus(registered, 201, 'wallet registration');
  const walletId = registered.body.walletId as string;
  if (stage === 'registered') return walletId;
  const otp = await sandboxCode(http.sdk, walletId);
  expectStatus(await http.post(`/v1/wallets/${walletId}/confirm`, { otp }), 200, `confirming wallet ${walletId}`);
  expectStatus(await http.post(`/v1/sandbox/wallets/${walletId}/approve`), 200, `approving wallet ${walletId}`);
  return walletId;
}
