/** Domain records as the ledger's gRPC messages: translation only, shared by the handlers. */
import type { ledger } from '@platform/proto';
import type { PartnerAccountSet } from '../persistence/accounts.repository';

export function toPartnerAccountsMessage(set: PartnerAccountSet): ledger.PartnerAccounts {
  return {
    partnerId: set.partnerId,
    kesAccountId: set.kesAccountId,
    usdtAccountId: set.usdtAccountId,
    usdAccountId: set.usdAccountId,
    usdtDepositAddress: set.usdtDepositAddress ?? '',
    kesAccountReference: set.kesAccountReference,
    kesAccountStatus: set.kesAccountStatus,
  };
}
