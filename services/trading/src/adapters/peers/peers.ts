/**
 * The calls trading makes to other services, as narrow types so use cases
 * and tests name exactly what they need, and the messages those calls answer
 * under the names use cases read them by. Use cases import these, never the
 * generated gRPC code. Each call rejects only with an AppError. Trading calls
 * no service that calls it: payouts (which calls trading for the daily cap
 * and for sell orders' proceeds) is never called from here.
 */
import type { PromiseClient } from '@platform/grpc';
import type { ledger, walletRegistry } from '@platform/proto';

export type LedgerApi = Pick<
  PromiseClient<typeof ledger.LedgerService>,
  | 'getPartnerAccounts'
  | 'getBalances'
  | 'placeHold'
  | 'postHold'
  | 'postHolds'
  | 'voidHold'
  | 'getServiceAccount'
  | 'getPayoutDestination'
  | 'expectUsdtDeposit'
  | 'postEntry'
  | 'getFundingInstructions'
  | 'registerPaymentReference'
  | 'listCreditsByReference'
  | 'getHold'
  | 'listOwnedHolds'
>;
export type WalletRegistryApi = Pick<PromiseClient<typeof walletRegistry.WalletRegistryService>, 'getWalletStatus'>;

/** A partner's ledger accounts (ids, currencies, readiness). */
export type LedgerPartnerAccounts = ledger.PartnerAccounts;
/** One hold's post, as PostHold and PostHolds take it. */
export type LedgerPostHoldRequest = ledger.PostHoldRequest;
/** A hold as the ledger lists it (owner, amount, status). */
export type LedgerHold = ledger.Hold;

/** The ledger's service accounts this service posts to, each asked of the ledger once per process. */
export { ServiceAccounts } from '@platform/saga';
