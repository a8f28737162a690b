/**
 * POST /v1/sandbox/usdt-deposits {txHash, usdtAmount} (scope sandbox, sandbox
 * mode only) → 201: a USDT deposit lands on the partner's deposit address.
 * txHash is 64 hex characters (a leading 0x is dropped; stored lowercase);
 * usdtAmount a positive USDT amount of at most 6 decimals. The same txHash
 * again returns the first deposit and credits nothing more. No deposit address
 * → 503 USDT_DEPOSIT_ADDRESS_NOT_ALLOCATED.
 */
import type { RequestHandler } from 'express';
import type { ledger } from '@platform/proto';
import { z } from 'zod';
import type { LedgerApi } from '../dependencies';
import { partnerAuthOf, rawBodyOf } from '../locals';
import { parseJsonObject, validateBody } from '../validation';
import { positiveAmount } from './amount-schemas';

export const usdtDepositSchema = z.object({
  txHash: z.string().regex(/^(0x)?[0-9a-f]{64}$/).transform((value) => value.replace(/^0x/, '')),
  usdtAmount: positiveAmount('USDT'),
}).strict();

/** The deposit as the partner sees it; `activityId` is the one `usdt_credit.received` carries. */
export function presentUsdtDeposit(deposit: ledger.UsdtDeposit) {
  return {
    activityId: deposit.depositId,
    txHash: deposit.txHash,
    amount: { currency: 'USDT', value: deposit.usdtAmount },
    status: deposit.status,
    receivedAt: deposit.receivedAt,
  };
}

export function simulateUsdtDepositHandler(deps: { ledger: Pick<LedgerApi, 'simulateUsdtDeposit'> }): RequestHandler {
  return async (req, res) => {
    const body = validateBody(usdtDepositSchema, parseJsonObject(rawBodyOf(res), req.headers['content-type']));
    const deposit = await deps.ledger.simulateUsdtDeposit({ partnerId: partnerAuthOf(res).partnerId, txHash: body.txHash, usdtAmount: body.usdtAmount });
    res.status(201).json(presentUsdtDeposit(deposit));
  };
}
