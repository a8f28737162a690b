/**
 * Typed methods for every /v1 route. Each resolves with the resource (its
 * response facts on `$response`) or rejects with PartnerApiError. Creates that
 * carry an idempotencyKey or partnerReference are retried safely; those that
 * cannot be repeated (mobile-money prompts, confirmation codes, resends, sandbox
 * KES credits) are sent once on a 503.
 */
import { PartnerClientOptions, PartnerTransport, RawResponse, SendOptions, withMeta, WithMeta } from './client';
import { eventsApi, webhookDeliveriesApi } from './events';
import type * as T from './types';

const id = (value: string) => encodeURIComponent(value);

export class PartnerClient {
  readonly transport: PartnerTransport;

  constructor(options: PartnerClientOptions) {
    this.transport = new PartnerTransport(options);
  }

  /** Any request, answered raw (never throws on an HTTP status). */
  send<R = unknown>(method: string, path: string, options?: SendOptions): Promise<RawResponse<R>> {
    return this.transport.send<R>(method, path, options);
  }

  private async call<R>(method: string, path: string, options?: SendOptions): Promise<WithMeta<R>> {
    return withMeta(await this.transport.call<R>(method, path, options));
  }

  private async callNoContent(method: string, path: string): Promise<void> {
    await this.transport.call<undefined>(method, path);
  }

  readonly health = { get: () => this.call<T.Health>('GET', '/v1/health') };

  /** The events feed: `list` a page, or `for await (const event of client.events.catchUp({ after }))`. */
  readonly events = eventsApi((method, path, options) => this.call(method, path, options));

  readonly webhookDeliveries = webhookDeliveriesApi((method, path, options) => this.call(method, path, options));

  readonly quotes = {
    create: (request: T.QuoteRequest) =>
      this.call<T.Quote>('POST', '/v1/quotes', { body: request, retrySafety: 'idempotent' }),
  };

  readonly orders = {
    buy: (request: T.BuyOrderRequest) => this.call<T.Order>('POST', '/v1/orders/buy', { body: request }),
    sell: (request: T.SellOrderRequest) => this.call<T.Order>('POST', '/v1/orders/sell', { body: request }),
    get: (orderId: string) => this.call<T.Order>('GET', `/v1/orders/${id(orderId)}`),
    list: (query: T.OrderQuery = {}) => this.call<T.Order[]>('GET', '/v1/orders', { query: { ...query } }),
    attachTxHash: (orderId: string, txHash: string) =>
      this.call<T.TxHashAttached>('PATCH', `/v1/orders/${id(orderId)}`, { body: { txHash } }),
  };

  readonly balances = {
    list: () => this.call<T.Balance[]>('GET', '/v1/balances'),
    /** One page of an account's statement, newest first; the next page's cursor is in X-Next-Cursor. */
    transactions: (accountId: string, query: T.StatementQuery = {}) =>
      this.call<T.StatementLine[]>('GET', `/v1/balances/${id(accountId)}/transactions`, { query: { ...query } }),
  };

  readonly funding = {
    instructions: () => this.call<T.FundingInstructions>('GET', '/v1/funding'),
    /** No idempotency key exists: never retried on a 503 (a second prompt could reach the payer). */
    mobileMoneyPush: (request: T.MobileMoneyPushRequest) =>
      this.call<T.MobileMoneyPush>('POST', '/v1/funding/mobile-money-push', { body: request, retrySafety: 'unsafe' }),
    mobileMoneyPushes: (query: T.MobileMoneyPushQuery = {}) =>
      this.call<T.MobileMoneyPushRecord[]>('GET', '/v1/funding/mobile-money-push', { query: { ...query } }),
  };

  readonly payoutDestinations = { list: () => this.call<T.PayoutDestination[]>('GET', '/v1/payout-destinations') };

  readonly admins = {
    /** Idempotent by e-mail: the same address again answers the existing administrator. */
    register: (request: T.AdminRequest) =>
      this.call<T.Administrator>('POST', '/v1/admins', { body: request, retrySafety: 'idempotent' }),
    list: () => this.call<T.Administrator[]>('GET', '/v1/admins'),
    remove: (adminId: string) => this.callNoContent('DELETE', `/v1/admins/${id(adminId)}`),
  };

  readonly wallets = {
    /** Idempotent by address: the same address again answers the existing registration. */
    register: (request: T.WalletRequest) =>
      this.call<T.Wallet>('POST', '/v1/wallets', { body: request, retrySafety: 'idempotent' }),
    list: () => this.call<T.Wallet[]>('GET', '/v1/wallets'),
    /** Confirming again with the code that confirmed answers 200, so a retry is safe. */
    confirm: (walletId: string, otp: string) =>
      this.call<T.Wallet>('POST', `/v1/wallets/${id(walletId)}/confirm`, { body: { otp }, retrySafety: 'idempotent' }),
    revoke: (walletId: string) => this.callNoContent('DELETE', `/v1/wallets/${id(walletId)}`),
  };

  readonly transfers = {
    create: (request: T.TransferRequest) => this.call<T.Transfer>('POST', '/v1/transfers', { body: request }),
    get: (transferId: string) => this.call<T.Transfer>('GET', `/v1/transfers/${id(transferId)}`),
    list: (query: T.TransferQuery = {}) => this.call<T.Transfer[]>('GET', '/v1/transfers', { query: { ...query } }),
    createBatch: (request: T.TransferBatchRequest) =>
      this.call<T.TransferBatch>('POST', '/v1/transfers/batch', { body: request }),
    getBatch: (batchId: string) => this.call<T.TransferBatch>('GET', `/v1/transfers/batch/${id(batchId)}`),
    listBatches: (query: T.TransferBatchQuery = {}) =>
      this.call<T.TransferBatch[]>('GET', '/v1/transfers/batch', { query: { ...query } }),
  };

  readonly usdtSends = {
    create: (request: T.UsdtSendRequest) => this.call<T.UsdtSend>('POST', '/v1/usdt/sends', { body: request }),
    get: (sendId: string) => this.call<T.UsdtSend>('GET', `/v1/usdt/sends/${id(sendId)}`),
    list: (query: T.UsdtSendQuery = {}) => this.call<T.UsdtSend[]>('GET', '/v1/usdt/sends', { query: { ...query } }),
  };

  readonly confirmations = {
    /** A code is counted on every try: never retried on a 503. */
    confirm: (confirmationId: string, code: string) =>
      this.call<T.ConfirmationResult>('POST', `/v1/confirmations/${id(confirmationId)}`, {
        body: { code },
        retrySafety: 'unsafe',
      }),
    resend: (confirmationId: string) =>
      this.call<T.ConfirmationHandle>('POST', `/v1/confirmations/${id(confirmationId)}/resend`, {
        retrySafety: 'unsafe',
      }),
  };

  readonly collections = {
    create: (request: T.CollectionRequest) => this.call<T.Collection>('POST', '/v1/collections', { body: request }),
    list: (query: T.CollectionQuery = {}) =>
      this.call<T.Collection[]>('GET', '/v1/collections', { query: { ...query } }),
    get: (collectionId: string) => this.call<T.Collection>('GET', `/v1/collections/${id(collectionId)}`),
  };

  /** Sandbox mode only: the simulated outside world (the sandbox guide lists its magic values). */
  readonly sandbox = {
    setRate: (request: T.SandboxRateRequest) =>
      this.call<T.SandboxRate>('POST', '/v1/sandbox/rates', { body: request, retrySafety: 'idempotent' }),
    /** Each call is another credit: never retried on a 503. */
    kesCredit: (request: T.KesCreditRequest) =>
      this.call<T.KesCredit>('POST', '/v1/sandbox/kes-credits', { body: request, retrySafety: 'unsafe' }),
    /** Keyed by txHash: the same hash again answers the first deposit. */
    usdtDeposit: (request: T.UsdtDepositRequest) =>
      this.call<T.UsdtDeposit>('POST', '/v1/sandbox/usdt-deposits', { body: request, retrySafety: 'keyed' }),
    approveWallet: (walletId: string) =>
      this.call<T.Wallet>('POST', `/v1/sandbox/wallets/${id(walletId)}/approve`, { retrySafety: 'idempotent' }),
    outbox: () => this.call<T.OutboxEntry[]>('GET', '/v1/sandbox/outbox'),
    collectionDeposit: (collectionId: string, request: T.CollectionDepositRequest) =>
      this.call<T.CollectionDeposit>('POST', `/v1/sandbox/collections/${id(collectionId)}/deposits`, {
        body: request,
        retrySafety: request.depositId ? 'keyed' : 'unsafe',
      }),
    expireCollection: (collectionId: string) =>
      this.call<T.Collection>('POST', `/v1/sandbox/collections/${id(collectionId)}/expire`, {
        retrySafety: 'idempotent',
      }),
    approveMobileMoneyPush: (pushId: string) =>
      this.call<T.MobileMoneyPushOutcome>('POST', `/v1/sandbox/mobile-money-pushes/${id(pushId)}/approve`, {
        retrySafety: 'idempotent',
      }),
    declineMobileMoneyPush: (pushId: string) =>
      this.call<T.MobileMoneyPushOutcome>('POST', `/v1/sandbox/mobile-money-pushes/${id(pushId)}/decline`, {
        retrySafety: 'idempotent',
      }),
  };
}
