/**
 * GET /v1/payout-destinations (scope read) → 200 `[{id, rail, currency,
 * accountName, accountNumber, bankCode, status}]`: the partner's active
 * destinations only, oldest first, the account number masked to its last four
 * digits. The full number never leaves the platform.
 */
import type { ledger } from '@platform/proto';
import type { LedgerApi } from '../dependencies';
import type { OperationHandler } from './operation';

export function presentPayoutDestination(destination: ledger.PayoutDestination) {
  return {
    id: destination.id,
    rail: destination.rail,
    currency: destination.currency,
    accountName: destination.accountName,
    accountNumber: `****${destination.accountNumber.slice(-4)}`,
    bankCode: destination.bankCode ?? null,
    status: destination.status,
  };
}

export function listPayoutDestinationsHandler(deps: {
  ledger: Pick<LedgerApi, 'listPayoutDestinations'>;
}): OperationHandler<'listPayoutDestinations'> {
  return async ({ partnerId }, res) => {
    const { destinations } = await deps.ledger.listPayoutDestinations({ partnerId });
    res.status(200).json(destinations.map(presentPayoutDestination));
  };
}
