/**
 * GET /v1/payout-destinations (scope read) → 200 `[{id, rail, currency,
 * accountName, accountNumber, bankCode, status}]` (contract decisions section
 * 5): the partner's active destinations only, oldest first, the account number
 * masked to its last four digits. The full number never leaves the platform.
 */
import type { RequestHandler } from 'express';
import type { ledger } from '@platform/proto';
import type { LedgerApi } from '../dependencies';
import { partnerAuthOf } from '../locals';

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

export function listPayoutDestinationsHandler(deps: { ledger: Pick<LedgerApi, 'listPayoutDestinations'> }): RequestHandler {
  return async (_req, res) => {
    const { destinations } = await deps.ledger.listPayoutDestinations({ partnerId: partnerAuthOf(res).partnerId });
    res.status(200).json(destinations.map(presentPayoutDestination));
  };
}
