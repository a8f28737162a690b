/**
 * The partner-plane resources, every one taken from the API reference: the
 * build generates src/gen/openapi.ts from libs/openapi/openapi.json
 * (openapi-typescript), so a field the reference adds, renames or bounds
 * reaches these types at the next build and the SDK cannot drift from the API.
 * Money is always a decimal string: KES 2 decimals, USDT 6, USD 2, rates 4.
 * Responses may gain fields (additive changes): never reject unknown ones.
 */
import type { components, operations } from './gen/openapi';

type Schemas = components['schemas'];

export type { components, operations, paths, webhooks } from './gen/openapi';

export type Decimal = string;
export type Timestamp = Schemas['Timestamp'];

export type Health = Schemas['Health'];
export type Fee = Schemas['Fee'];
export type Money = Schemas['Money'];

type QuoteFields = Schemas['QuoteRequest'];
/** Exactly one of kesAmount and usdtAmount (the reference's oneOf, kept as a union). */
export type QuoteRequest =
  | (Omit<QuoteFields, 'kesAmount' | 'usdtAmount'> & {
      kesAmount: NonNullable<QuoteFields['kesAmount']>;
      usdtAmount?: never;
    })
  | (Omit<QuoteFields, 'kesAmount' | 'usdtAmount'> & {
      usdtAmount: NonNullable<QuoteFields['usdtAmount']>;
      kesAmount?: never;
    });
export type Quote = Schemas['Quote'];

export type Order = Schemas['Order'];
export type OrderStatus = Order['status'];
export type KesDebitStatus = NonNullable<Order['kesDebit']>['status'];
export type PaymentInstructions = NonNullable<Order['paymentInstructions']>;
export type BuyOrderRequest = Schemas['BuyOrderRequest'];
export type SellOrderRequest = Schemas['SellOrderRequest'];
export type TxHashAttached = Schemas['TxHashAttached'];

export type Balance = Schemas['Balance'];
export type FundingInstructions = Schemas['FundingInstructions'];
export type PayoutDestination = Schemas['PayoutDestination'];
export type MobileMoneyPushRequest = Schemas['MobileMoneyPushRequest'];
export type MobileMoneyPush = Schemas['MobileMoneyPush'];
export type MobileMoneyPushOutcome = Schemas['MobileMoneyPushOutcome'];

export type AdminRequest = Schemas['AdminRequest'];
export type Administrator = Schemas['Administrator'];
export type WalletRequest = Schemas['WalletRequest'];
export type Wallet = Schemas['Wallet'];
export type WalletStatus = Wallet['status'];

export type ConfirmationHandle = Schemas['ConfirmationHandle'];
export type ConfirmationResult = Schemas['ConfirmationResult'];
export type TransferRequest = Schemas['TransferRequest'];
export type Transfer = Schemas['Transfer'];
export type TransferStatus = Transfer['status'];
export type TransferBatchRequest = Schemas['TransferBatchRequest'];
export type TransferBatch = Schemas['TransferBatch'];
export type UsdtSendRequest = Schemas['UsdtSendRequest'];
export type UsdtSend = Schemas['UsdtSend'];
export type UsdtSendStatus = UsdtSend['status'];

export type CollectionRequest = Schemas['CollectionRequest'];
export type Collection = Schemas['Collection'];
export type CollectionStatus = Collection['status'];
/** The transfers list's filters and page (the reference's query parameters). */
export type TransferQuery = NonNullable<operations['listTransfers']['parameters']['query']>;
/** The orders list's filters and page (the reference's query parameters). */
export type OrderQuery = NonNullable<operations['listOrders']['parameters']['query']>;
/** The USDT sends list's filters and page (the reference's query parameters). */
export type UsdtSendQuery = NonNullable<operations['listUsdtSends']['parameters']['query']>;
/** The batches list's filters and page (the reference's query parameters). */
export type TransferBatchQuery = NonNullable<operations['listTransferBatches']['parameters']['query']>;
/** The payment prompts list's filters and page (the reference's query parameters). */
export type MobileMoneyPushQuery = NonNullable<operations['listMobileMoneyPushes']['parameters']['query']>;
export type MobileMoneyPushRecord = Schemas['MobileMoneyPushRecord'];
/** A statement's window and page (the reference's query parameters). */
export type StatementQuery = NonNullable<operations['listAccountTransactions']['parameters']['query']>;
export type StatementLine = Schemas['StatementLine'];
/** The list's filters and page (the reference's query parameters). */
export type CollectionQuery = NonNullable<operations['listCollections']['parameters']['query']>;

export type SandboxRateRequest = Schemas['SandboxRateRequest'];
export type SandboxRate = Schemas['SandboxRate'];
export type KesCreditRequest = Schemas['KesCreditRequest'];
export type KesCredit = Schemas['KesCredit'];
export type UsdtDepositRequest = Schemas['UsdtDepositRequest'];
export type UsdtDeposit = Schemas['UsdtDeposit'];
export type OutboxEntry = Schemas['OutboxEntry'];
export type CollectionDepositRequest = Schemas['CollectionDepositRequest'];
export type CollectionDeposit = Schemas['CollectionDeposit'];

/** The events feed: each event exactly as its webhook delivers it. */
export type Event = Schemas['Event'];
export type EventQuery = NonNullable<operations['listEvents']['parameters']['query']>;
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type WebhookDeliveryStatus = WebhookDelivery['status'];
export type WebhookDeliveryQuery = NonNullable<operations['listWebhookDeliveries']['parameters']['query']>;

/** Every refusal's body. */
export type ErrorBody = Schemas['ErrorEnvelope'];
/** The stable codes partners branch on. */
export type ErrorCode = Schemas['ErrorCode'];

/** Webhook envelope. `type` is authoritative; ignore unknown types and fields. */
export interface WebhookEvent<D = Record<string, unknown>> {
  id: string;
  type: string;
  createdAt: Timestamp;
  data: D;
}
