/**
 * What the HTTP app needs from the outside, as narrow interfaces: main wires
 * Redis, PostgreSQL and gRPC clients in; a unit test can wire fakes. Every
 * implementation fails closed: when its store cannot answer it throws
 * AppError SERVICE_UNAVAILABLE, never lets a request through unchecked.
 */
import type { KeyObject } from 'node:crypto';
import type { Logger } from '@platform/logger';
import type {
  CollectionsClient,
  LedgerClient,
  NotifierClient,
  PayoutsClient,
  TradingClient,
  WalletRegistryClient,
  WebhookDeliveryClient,
} from '../adapters/upstreams';
import type { Admission } from '../domain/rate-limit';
import type { RefusedAuthentications } from '../domain/refused-authentications';
import type { Scope } from '../domain/scopes';
import type { GatewayMetrics } from './gateway-metrics';

export interface AuthenticatedCredential {
  apiKey: string;
  partnerId: string;
  /** The signing secret, opened from its sealed form, as an HMAC key (signingKeyOf); kept in memory only, never logged. */
  signingKey: KeyObject;
  scopes: readonly Scope[];
  status: 'active' | 'revoked';
  rateLimitPerMinute: number;
}

export interface CredentialLookup {
  /** null for an unknown key; a key known in memory may be answered at once, without a promise. */
  find(apiKey: string): AuthenticatedCredential | null | Promise<AuthenticatedCredential | null>;
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
  /** True when Redis and the database answer and the gateway is not draining; never throws. */
  ready(): Promise<boolean>;
}

/**
 * The calls the routes make, picked from the gRPC clients (whose types are
 * generated from the protos), so request and response types are never written
 * twice. Each rejects only with an AppError (a refusal or SERVICE_UNAVAILABLE).
 */
export type TradingApi = Pick<
  TradingClient,
  'createQuote' | 'setSandboxRate' | 'createBuyOrder' | 'createSellOrder' | 'getOrder' | 'attachTxHash' | 'listOrders'
>;
export type LedgerApi = Pick<
  LedgerClient,
  | 'getBalances'
  | 'listStatement'
  | 'simulateKesCredit'
  | 'getFundingInstructions'
  | 'listPayoutDestinations'
  | 'simulateUsdtDeposit'
>;
export type WalletRegistryApi = Pick<
  WalletRegistryClient,
  | 'registerAdmin'
  | 'listAdmins'
  | 'removeAdmin'
  | 'registerWallet'
  | 'confirmWallet'
  | 'listWallets'
  | 'revokeWallet'
  | 'approveWallet'
>;
export type NotifierApi = Pick<NotifierClient, 'listSandboxOutbox'>;
export type CollectionsApi = Pick<
  CollectionsClient,
  'createCollection' | 'getCollection' | 'listCollections' | 'simulateDeposit' | 'expireNow'
>;
export type PayoutsApi = Pick<
  PayoutsClient,
  | 'createTransfer'
  | 'getTransfer'
  | 'listTransfers'
  | 'confirm'
  | 'resendConfirmation'
  | 'createUsdtSend'
  | 'getUsdtSend'
  | 'createTransferBatch'
  | 'getTransferBatch'
  | 'createMobileMoneyPush'
  | 'approveMobileMoneyPush'
  | 'declineMobileMoneyPush'
  | 'listUsdtSends'
  | 'listTransferBatches'
  | 'listMobileMoneyPushes'
>;
export type WebhookDeliveryApi = Pick<WebhookDeliveryClient, 'listEvents' | 'listPartnerDeliveries' | 'retryDelivery'>;

export interface AppDependencies {
  logger: Logger;
  mode: 'sandbox' | 'production';
  /** The gateway's version, shown by GET /v1/health. */
  version: string;
  apiKeyPattern: RegExp;
  credentials: CredentialLookup;
  admission: RequestAdmission;
  /** Refused authentications per source address, on this replica. */
  refusedAuthentications: RefusedAuthentications;
  /** Proxies in front that append to X-Forwarded-For; 0 when clients connect directly. */
  trustedProxyHops: number;
  trading: TradingApi;
  ledger: LedgerApi;
  walletRegistry: WalletRegistryApi;
  notifier: NotifierApi;
  collections: CollectionsApi;
  payouts: PayoutsApi;
  webhookDelivery: WebhookDeliveryApi;
  upstreamHealth: UpstreamHealth;
  readiness: Readiness;
  /** Requests by route, authentication and rate-limit refusals (gateway-metrics.ts). */
  metrics: GatewayMetrics;
  nowMs?: () => number;
}
