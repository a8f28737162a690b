/**
 * GET /v1/funding (scope read) → 200 funding instructions: the paybill entry
 * while the partner's KES account is active (else `kes: []`: a reference that
 * is not live is never handed out), and the USDT deposit address. No deposit
 * address allocated → 503 USDT_DEPOSIT_ADDRESS_NOT_ALLOCATED.
 */
import { AppError } from '@platform/errors';
import type { ledger } from '@platform/proto';
import type { LedgerApi } from '../dependencies';
import type { OperationHandler } from './operation';

export const PAYBILL_INSTRUCTIONS =
  'Pay with M-Pesa (Lipa na M-Pesa, Pay Bill) to the paybill number, entering accountReference exactly as the account number. ' +
  'The payment tops up your KES balance; it is not tied to an order.';
export const USDT_INSTRUCTIONS =
  'Send USDT (TRC-20) on TRON to this address. No memo or tag is used. ' +
  'A deposit whose transaction hash is attached to a sell order settles that order; any other deposit tops up your USDT balance.';

export function presentFunding(funding: ledger.FundingInstructions) {
  return {
    kes: funding.kesEntryAvailable
      ? [
          {
            rail: 'mobile_money_paybill',
            paybill: funding.paybill,
            accountReference: funding.accountReference,
            beneficiaryName: funding.beneficiaryName,
            currency: 'KES',
            instructions: PAYBILL_INSTRUCTIONS,
          },
        ]
      : [],
    usdt: {
      chain: 'tron',
      asset: 'USDT',
      address: funding.usdtDepositAddress,
      memo: null,
      instructions: USDT_INSTRUCTIONS,
    },
  };
}

export function getFundingHandler(deps: {
  ledger: Pick<LedgerApi, 'getFundingInstructions'>;
}): OperationHandler<'getFundingInstructions'> {
  return async ({ partnerId }, res) => {
    const funding = await deps.ledger.getFundingInstructions({ partnerId });
    if (funding.usdtDepositAddress === '') throw new AppError('USDT_DEPOSIT_ADDRESS_NOT_ALLOCATED');
    res.status(200).json(presentFunding(funding));
  };
}
