/**
 * The partner-plane resources (spec section 2, contract decisions, docs/api-behaviour.md).
 * Money is always a decimal string: KES 2 decimals, USDT 6, USD 2, rates 4.
 * Responses may gain fields (additive changes): never reject unknown ones.
 */

export type Decimal = string;
export type Timestamp = string;

export interface Health { status: 'ok' | 'degraded'; time: Timestamp; version: string }

export interface Fee { kesAmount: Decimal; currency: 'KES'; percentBps: number; flatKesAmount: Decimal; capKesAmount: Decimal | null }

export type QuoteRequest =
  | { side: 'buy' | 'sell'; kesAmount: Decimal; usdtAmount?: never }
  | { side: 'buy' | 'sell'; usdtAmount: Decimal; kesAmount?: never };

export interface Quote {
  quoteId: string; side: 'buy' | 'sell'; kesAmount: Decimal; usdtAmount: Decimal; rate: Decimal; kesTotalAmount: Decimal;
  fee: Fee; expiresAt: Timestamp; settlementEstimateSeconds: number;
}

export type OrderStatus = 'awaiting_usdt' | 'awaiting_payment' | 'funds_reserved' | 'settled' | 'rejected' | 'expired';
export type KesDebitStatus = 'reserved' | 'debited' | 'released' | 'reversal_pending' | 'reversed';

export interface PaymentInstructions {
  rail: string; paybill: string; payTo: string; beneficiaryName: string; reference: string; kesAmount: Decimal; currency: 'KES';
  payBefore: Timestamp; instructions: string;
}

export interface Order {
  orderId: string; partnerReference: string; side: 'buy' | 'sell'; status: OrderStatus; kesAmount: Decimal; usdtAmount: Decimal;
  rate: Decimal; kesTotalAmount: Decimal; fee: Fee; expiresAt: Timestamp; createdAt: Timestamp;
  /** Debit-first buys. */
  kesDebit?: { status: KesDebitStatus };
  /** Deposit-mode sells. */
  depositAddress?: string; chain?: 'tron'; sendBefore?: Timestamp; txHash?: string;
  /** Pay-in buys. */
  paymentInstructions?: PaymentInstructions; paymentReference?: string; walletId?: string;
  payment?: { railReference: string; bankTransactionId: string; matchedAt: Timestamp };
}

export interface BuyOrderRequest { quoteId: string; partnerReference: string; expectedUsdtAmount?: Decimal; walletId?: string; paymentRail?: 'mobile_money' }
export interface SellOrderRequest { quoteId: string; partnerReference: string; payoutAccountId: string }
export interface TxHashAttached { orderId: string; status: OrderStatus; txHash: string }

export interface Balance { accountId: string; currency: 'KES' | 'USDT' | 'USD'; available: Decimal; held: Decimal }

export interface FundingInstructions {
  kes: Array<{ rail: string; paybill: string; accountReference: string; beneficiaryName: string; currency: 'KES'; instructions: string }>;
  usdt: { chain: 'tron'; asset: 'USDT'; address: string; memo: null; instructions: string };
}

export interface PayoutDestination {
  id: string; rail: string; currency: string; accountName: string; accountNumber: string; bankCode: string | null; status: 'active';
}

export interface Administrator { adminId: string; email: string; name: string; status: 'active' }

export type WalletStatus = 'pending_partner_approval' | 'pending_service_approval' | 'active' | 'rejected';
export interface Wallet {
  walletId: string; chain: 'tron'; asset: 'USDT'; address: string; label: string; status: WalletStatus;
  screeningStatus: 'pending' | 'cleared' | 'rejected'; createdAt: Timestamp; nextStep: string; approvalSentTo?: string;
}
export interface WalletRequest { chain: 'tron'; asset: 'USDT'; address: string; label?: string }

export interface Money { currency: string; value: Decimal }

export interface ConfirmationHandle { id: string; channel: 'email'; deliveredTo: string; expiresAt: Timestamp; resendAvailableAt: Timestamp }

export type TransferStatus = 'awaiting_confirmation' | 'confirmed' | 'settled' | 'failed' | 'expired';
export interface TransferRequest {
  rail: string; destination: { accountNumber: string; accountName: string; bankCode?: string }; amount: Money; idempotencyKey: string;
  partnerReference?: string;
}
export interface Transfer {
  id: string; status: TransferStatus; rail: string; amount: Money; fee: Money;
  destination: { accountNumber: string; accountName: string; bankCode?: string | null }; nameVerification: string;
  verifiedAccountName?: string | null; partnerReference: string; failureCode?: string | null; createdAt: Timestamp;
  confirmedAt?: Timestamp | null; settledAt?: Timestamp | null; confirmation: ConfirmationHandle;
}

export interface TransferBatchRequest { idempotencyKey: string; items: TransferRequest[] }
export interface TransferBatch {
  id: string; status: string; itemCount: number; acceptedCount: number; failedCount: number;
  items: Array<{ transferId: string | null; idempotencyKey: string; accepted: boolean; failureCode?: string | null }>;
  createdAt: Timestamp; confirmedAt?: Timestamp | null; confirmation: ConfirmationHandle;
}

export type UsdtSendStatus = 'awaiting_confirmation' | 'confirmed' | 'settled' | 'failed' | 'expired';
export interface UsdtSendRequest { destinationWalletId: string; usdtAmount: Decimal; idempotencyKey: string; partnerReference?: string }
export interface UsdtSend {
  id: string; status: UsdtSendStatus; destinationWalletId: string; usdtAmount: Decimal; partnerReference: string;
  failureReason?: string | null; createdAt: Timestamp; confirmedAt?: Timestamp | null; confirmation: ConfirmationHandle;
}

export interface ConfirmationResult {
  confirmationId: string; subjectType: 'transfer' | 'usdt_send' | 'transfer_batch'; subjectId: string; status: 'confirmed'; verifiedAt: Timestamp;
}

export interface MobileMoneyPushRequest { phone: string; amount: Decimal }
export interface MobileMoneyPush { pushId: string; status: 'pending' | string }

export type CollectionStatus = 'open' | 'received' | 'crediting' | 'credited' | 'refunded' | 'expired';
export interface CollectionRequest { currency: 'USD'; partnerReference: string; payerLabel: string; expectedAmount?: Decimal }
export interface Collection {
  id: string; reference: string; status: CollectionStatus; currency: 'USD';
  depositInstructions: {
    beneficiaryName: string; bankName: string; routingNumber: string; accountNumber: string; rails: string[]; depositMessage: string;
  } | null;
  fee: { percentBps: number; flatMinor: number; capMinor: number; currency: 'USD' } | null;
  expectedAmount: Decimal | null; grossAmount: Decimal | null; feeAmount: Decimal | null; netAmount: Decimal | null; createdAt: Timestamp;
  partnerReference?: string; payerLabel?: string; amountMismatch?: boolean | null; senderName?: string | null;
  refundReason?: string | null; treasuryCreditTxId?: string | null; expiresAt?: Timestamp;
}
export interface CollectionQuery { reference?: string; status?: CollectionStatus; from?: string; to?: string; limit?: number; cursor?: string }

export interface SandboxRate { bid: Decimal; ask: Decimal; halted: boolean; observedAt: Timestamp }
export interface KesCredit { transactionId: string; accountId: string; amount: Money; rail: string; reference: string | null; receivedAt: Timestamp }
export interface UsdtDeposit { activityId: string; txHash: string; amount: Money; status: string; receivedAt: Timestamp }
export interface OutboxEntry {
  id: string; kind: 'wallet_approval' | 'transfer_confirmation' | 'usdt_send_confirmation' | 'batch_confirmation';
  to: string; subject: string; code: string | null; subjectType: string; subjectId: string; createdAt: Timestamp;
}
export interface CollectionDeposit {
  depositId: string; collectionId: string; amount: Decimal; currency: 'USD'; senderName: string | null;
  disposition: 'accepted' | 'refunded'; refundReason: string | null; receivedAt: Timestamp; collection: Collection;
}

/** Webhook envelope (spec section 6). `type` is authoritative; ignore unknown types and fields. */
export interface WebhookEvent<D = Record<string, unknown>> { id: string; type: string; createdAt: Timestamp; data: D }
