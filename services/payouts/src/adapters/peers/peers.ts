/**
 * The calls payouts makes to other services, as narrow types so use cases
 * and tests name exactly what they need. Each rejects only with an AppError.
 */
import type { PromiseClient } from '@platform/grpc';
import type { ledger, notifier, trading, walletRegistry } from '@platform/proto';

export type LedgerApi = Pick<
  PromiseClient<typeof ledger.LedgerService>,
  | 'getPayoutDestination'
  | 'getPartnerAccounts'
  | 'recordKesCredit'
  | 'placeHold'
  | 'postHold'
  | 'voidHold'
  | 'getHold'
  | 'listOwnedHolds'
  | 'getServiceAccount'
>;
export type TradingLimitsApi = Pick<
  PromiseClient<typeof trading.TradingLimitsService>,
  'reserveDailyCap' | 'releaseDailyCap'
>;
/** Sell orders' proceeds, claimed from trading and reported back (payouts calls trading; never the reverse). */
export type TradingSellProceedsApi = Pick<
  PromiseClient<typeof trading.TradingSellProceedsService>,
  'claimDueSellProceeds' | 'recordSellProceedsOutcome'
>;
export type WalletRegistryApi = Pick<
  PromiseClient<typeof walletRegistry.WalletRegistryService>,
  'getCodeRecipient' | 'getWalletStatus'
>;
export type NotifierApi = Pick<PromiseClient<typeof notifier.NotifierService>, 'sendMessage'>;

/** The messages those calls answer, under the names use cases read them by (never the generated code itself). */
export type LedgerHold = ledger.Hold;
export type LedgerPayoutDestination = ledger.PayoutDestination;
export type CodeRecipient = walletRegistry.CodeRecipient;
export type DueSellProceeds = trading.DueSellProceeds;
export type WalletStatus = walletRegistry.WalletStatus;

/** The ledger's service accounts this service posts to, each asked of the ledger once per process. */
export { ServiceAccounts } from '@platform/saga';
