/** Account readiness, funding instructions and payout destinations: translation only. */
import type { AsyncImplementation } from '@platform/grpc';
import type { ledger } from '@platform/proto';
import type { PayoutDestinationRecord } from '../persistence/payout-destinations.repository';
import type { GetFundingInstructionsUseCase } from '../usecases/get-funding-instructions/get-funding-instructions.usecase';
import type { ManagePayoutDestinationsUseCase } from '../usecases/manage-payout-destinations/manage-payout-destinations.usecase';
import type { SetAccountReadinessUseCase } from '../usecases/set-account-readiness/set-account-readiness.usecase';
import { toPartnerAccountsMessage } from './presenters';

type AccountMethods =
  | 'setKesAccountStatus'
  | 'allocateDepositAddress'
  | 'getFundingInstructions'
  | 'addPayoutDestination'
  | 'setPayoutDestinationStatus'
  | 'getPayoutDestination'
  | 'listPayoutDestinations';

export interface LedgerAccountsDeps {
  readiness: SetAccountReadinessUseCase;
  funding: GetFundingInstructionsUseCase;
  payoutDestinations: ManagePayoutDestinationsUseCase;
}

export function toPayoutDestinationMessage(record: PayoutDestinationRecord): ledger.PayoutDestination {
  return { ...record, bankCode: record.bankCode ?? undefined };
}

export function ledgerAccountsHandlers(
  deps: LedgerAccountsDeps,
): Pick<AsyncImplementation<typeof ledger.LedgerService>, AccountMethods> {
  return {
    setKesAccountStatus: async (request) => toPartnerAccountsMessage(await deps.readiness.setKesAccountStatus(request)),
    allocateDepositAddress: async (request) =>
      toPartnerAccountsMessage(await deps.readiness.allocateDepositAddress(request)),
    async getFundingInstructions(request) {
      const record = await deps.funding.execute(request);
      return { ...record, usdtDepositAddress: record.usdtDepositAddress ?? '' };
    },
    async addPayoutDestination(request) {
      return toPayoutDestinationMessage(
        await deps.payoutDestinations.add({ ...request, bankCode: request.bankCode ?? null }),
      );
    },
    setPayoutDestinationStatus: async (request) =>
      toPayoutDestinationMessage(await deps.payoutDestinations.setStatus(request)),
    getPayoutDestination: async (request) => toPayoutDestinationMessage(await deps.payoutDestinations.get(request)),
    async listPayoutDestinations(request) {
      return { destinations: (await deps.payoutDestinations.listActive(request)).map(toPayoutDestinationMessage) };
    },
  };
}
