/**
 * What the HTTP app needs from the outside, as narrow interfaces: main wires
 * Redis, PostgreSQL and gRPC clients in; a unit test can wire fakes. Every
 * implementation fails closed: when its store cannot answer it throws
 * AppError SERVICE_UNAVAILABLE, never lets a request through unchecked.
 */
import type { Logger } from '@platform/logger';
import type { collections, ledger, notifier, payouts, payoutsFunding, trading, walletRegistry } from '@platform/proto';
import type { Admission } from '../domain/rate-limit';
import type { Scope } from '../domain/scopes';

export interface AuthenticatedCredential {
  apiKey: string;
  partnerId: string;
  /** Opened from its sealed form; kept in memory only, never logged. */
  signingSecret: string;
  scopes: readonly Scope[];
  status: 'active' | 'revoked';
  rateLimitPerMinute: number;
}

export interface CredentialLookup {
  /** null for an unknown key. */
  find(apiKey: string): Promise<AuthenticatedCredential | null>;
}

export interface AdmissionRequest {
  apiKey: string;
  nonce: string;
  partnerId: string;
  limitPerMinute: number;
}

export interface RequestAdmission {
  /**
   * For an authentic request: claims its nonce (single-use per key within the
   * retention) and, when fresh, counts it against the partner's per-minute
   * limit unless the limit is reached. One atomic step: a replay is never
   * counted, a refused request never recorded.
   */
  admit(request: AdmissionRequest): Promise<Admission>;
}

export interface UpstreamHealth {
  /** Never throws: an unanswered check is "degraded". */
  status(): Promise<'ok' | 'degraded'>;
}

export interface Readiness {
  /** True when Redis and the database answer; never throws. */
  ready(): Promise<boolean>;
}

/** The calls the routes make. Each rejects only with an AppError (a refusal or SERVICE_UNAVAILABLE). */
export interface TradingApi {
  createQuote(request: trading.CreateQuoteRequest): Promise<trading.Quote>;
  setSandboxRate(request: trading.SetSandboxRateRequest): Promise<trading.SandboxRate>;
  createBuyOrder(request: trading.CreateBuyOrderRequest): Promise<trading.OrderResult>;
  createSellOrder(request: trading.CreateSellOrderRequest): Promise<trading.OrderResult>;
  getOrder(request: trading.GetOrderRequest): Promise<trading.Order>;
  attachTxHash(request: trading.AttachTxHashRequest): Promise<trading.Order>;
}

export interface LedgerApi {
  getBalances(request: ledger.GetBalancesRequest): Promise<ledger.GetBalancesResponse>;
  simulateKesCredit(request: ledger.SimulateKesCreditRequest): Promise<ledger.KesCredit>;
  getFundingInstructions(request: ledger.GetFundingInstructionsRequest): Promise<ledger.FundingInstructions>;
  listPayoutDestinations(request: ledger.ListPayoutDestinationsRequest): Promise<ledger.ListPayoutDestinationsResponse>;
  simulateUsdtDeposit(request: ledger.SimulateUsdtDepositRequest): Promise<ledger.UsdtDeposit>;
}

export interface WalletRegistryApi {
  registerAdmin(request: walletRegistry.RegisterAdminRequest): Promise<walletRegistry.RegisterAdminResponse>;
  listAdmins(request: walletRegistry.ListAdminsRequest): Promise<walletRegistry.ListAdminsResponse>;
  removeAdmin(request: walletRegistry.RemoveAdminRequest): Promise<walletRegistry.RemoveAdminResponse>;
  registerWallet(request: walletRegistry.RegisterWalletRequest): Promise<walletRegistry.RegisterWalletResponse>;
  confirmWallet(request: walletRegistry.ConfirmWalletRequest): Promise<walletRegistry.Wallet>;
  listWallets(request: walletRegistry.ListWalletsRequest): Promise<walletRegistry.ListWalletsResponse>;
  revokeWallet(request: walletRegistry.RevokeWalletRequest): Promise<walletRegistry.RevokeWalletResponse>;
  approveWallet(request: walletRegistry.SandboxApproveWalletRequest): Promise<walletRegistry.Wallet>;
}

export interface NotifierApi {
  listSandboxOutbox(request: notifier.ListSandboxOutboxRequest): Promise<notifier.ListSandboxOutboxResponse>;
}

export interface CollectionsApi {
  createCollection(request: collections.CreateCollectionRequest): Promise<collections.CreateCollectionResponse>;
  getCollection(request: collections.GetCollectionRequest): Promise<collections.Collection>;
  listCollections(request: collections.ListCollectionsRequest): Promise<collections.ListCollectionsResponse>;
  simulateDeposit(request: collections.SimulateDepositRequest): Promise<collections.SimulateDepositResponse>;
  expireNow(request: collections.ExpireNowRequest): Promise<collections.Collection>;
}

export interface PayoutsApi {
  createTransfer(request: payouts.CreateTransferRequest): Promise<payouts.CreateTransferResponse>;
  getTransfer(request: payouts.GetTransferRequest): Promise<payouts.Transfer>;
  confirm(request: payouts.ConfirmRequest): Promise<payouts.ConfirmationResult>;
  resendConfirmation(request: payouts.ResendConfirmationRequest): Promise<payouts.ConfirmationHandle>;
  createUsdtSend(request: payouts.CreateUsdtSendRequest): Promise<payouts.CreateUsdtSendResponse>;
  getUsdtSend(request: payouts.GetUsdtSendRequest): Promise<payouts.UsdtSend>;
  createTransferBatch(request: payouts.CreateTransferBatchRequest): Promise<payouts.CreateTransferBatchResponse>;
  getTransferBatch(request: payouts.GetTransferBatchRequest): Promise<payouts.TransferBatch>;
  createMobileMoneyPush(request: payoutsFunding.CreateMobileMoneyPushRequest): Promise<payoutsFunding.MobileMoneyPush>;
  approveMobileMoneyPush(request: payoutsFunding.AnswerMobileMoneyPushRequest): Promise<payoutsFunding.MobileMoneyPush>;
  declineMobileMoneyPush(request: payoutsFunding.AnswerMobileMoneyPushRequest): Promise<payoutsFunding.MobileMoneyPush>;
}

export interface AppDependencies {
  logger: Logger;
  mode: 'sandbox' | 'production';
  /** The gateway's version, shown by GET /v1/health. */
  version: string;
  apiKeyPattern: RegExp;
  credentials: CredentialLookup;
  admission: RequestAdmission;
  trading: TradingApi;
  ledger: LedgerApi;
  walletRegistry: WalletRegistryApi;
  notifier: NotifierApi;
  collections: CollectionsApi;
  payouts: PayoutsApi;
  upstreamHealth: UpstreamHealth;
  readiness: Readiness;
  nowMs?: () => number;
}
