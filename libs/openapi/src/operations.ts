/**
 * The partner plane's route table as documented: one entry per operation,
 * with its scope, bodies, success answers and the refusal codes it can give
 * beyond the ones every /v1 operation can give (COMMON_ERROR_CODES). Statuses
 * of refusals come from the error catalogue, never from here.
 */
import type { ErrorCode } from '@platform/errors';

export type Method = 'get' | 'post' | 'patch' | 'delete';
export type Scope = 'read' | 'trade' | 'payouts' | 'wallets' | 'funding' | 'collections' | 'sandbox';

export interface SuccessAnswer {
  description: string;
  /** A component schema name; `Name[]` for an array of it; absent for no body. */
  schema?: string;
  headers?: string[];
}

export interface OperationSpec {
  method: Method;
  /** OpenAPI form, e.g. `/v1/orders/{id}`. */
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  scope: Scope;
  requestSchema?: string;
  query?: Array<{ name: string; description: string; schema: Record<string, unknown> }>;
  success: Record<number, SuccessAnswer>;
  errors: ErrorCode[];
}

/** Every /v1 operation may answer these (authentication, rate limit, scope, body, routing, plumbing). */
export const COMMON_ERROR_CODES: ErrorCode[] = [
  'VALIDATION_FAILED', 'UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'NOT_FOUND', 'PAYLOAD_TOO_LARGE', 'RATE_LIMITED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE',
];

const ORDER_CREATE_ERRORS: ErrorCode[] = [
  'QUOTE_NOT_FOUND', 'KILL_SWITCH_ENGAGED', 'SWAPS_DISABLED', 'PARTNER_SUSPENDED', 'TREASURY_ACCOUNT_UNAVAILABLE', 'TREASURY_ACCOUNT_NOT_REGISTERED',
  'QUOTE_SIDE_MISMATCH', 'ORDER_EXCEEDS_PER_ORDER_CAP', 'ORDER_EXCEEDS_DAILY_CAP', 'ORDER_DAILY_CAP_RATE_UNAVAILABLE', 'QUOTE_EXPIRED_OR_CONSUMED',
  'PARTNER_NOT_FOUND',
];
const TRANSFER_CREATE_ERRORS: ErrorCode[] = [
  'IDEMPOTENCY_KEY_REUSED', 'NO_ADMINISTRATOR_REGISTERED', 'TRANSFER_EXCEEDS_PER_TRANSFER_CAP', 'DAILY_CAP_EXCEEDED', 'ORDER_DAILY_CAP_RATE_UNAVAILABLE',
  'INSUFFICIENT_KES_BALANCE', 'KILL_SWITCH_ENGAGED', 'PARTNER_SUSPENDED', 'PARTNER_VA_NOT_ALLOCATED', 'PARTNER_VA_ACTIVATING', 'PARTNER_VA_SUSPENDED',
];
const REPLAYED = 'Idempotent-Replayed';
const NEXT_CURSOR = 'X-Next-Cursor';

export const OPERATIONS: OperationSpec[] = [
  { method: 'get', path: '/v1/health', operationId: 'getHealth', tag: 'Service', summary: 'Service status', scope: 'read',
    description: 'Always 200 while the gateway answers; `degraded` when a core service is not answering.',
    success: { 200: { description: 'The service status', schema: 'Health' } }, errors: [] },

  { method: 'post', path: '/v1/quotes', operationId: 'createQuote', tag: 'Quotes', summary: 'Quote a buy or a sell', scope: 'trade',
    description: 'Locks a rate until `expiresAt` (single use). Rounding is always in the service\'s favour (contract decisions section 3).',
    requestSchema: 'QuoteRequest', success: { 201: { description: 'The quote', schema: 'Quote' } },
    errors: ['RATE_UNAVAILABLE', 'FEE_EXCEEDS_PROCEEDS', 'FEE_PRICING_INVALID'] },

  { method: 'post', path: '/v1/orders/buy', operationId: 'createBuyOrder', tag: 'Orders', summary: 'Buy USDT with KES', scope: 'trade',
    description: 'Debit-first partners: the KES total is held on the partner\'s KES balance at create (`kesDebit.status` `reserved`). Pay-in partners: '
      + '`awaiting_payment` with `paymentInstructions`. The same `partnerReference` again returns the original order with its original status.',
    requestSchema: 'BuyOrderRequest', success: { 202: { description: 'The order, not settled yet', schema: 'Order' } },
    errors: [...ORDER_CREATE_ERRORS, 'EXPECTED_AMOUNT_MISMATCH', 'PARTNER_VA_NOT_ALLOCATED', 'PARTNER_VA_ACTIVATING', 'PARTNER_VA_SUSPENDED',
      'INSUFFICIENT_KES_BALANCE', 'KES_BALANCE_UNREADABLE', 'KES_DEBIT_FAILED', 'KES_DEBIT_AMBIGUOUS', 'WALLET_NOT_FOUND', 'WALLET_OWNERSHIP_CHECK_FAILED', 'BRIDGE_NOT_CONFIGURED', 'CUSTOMER_WALLETS_DISABLED'] },

  { method: 'post', path: '/v1/orders/sell', operationId: 'createSellOrder', tag: 'Orders', summary: 'Sell USDT for KES', scope: 'trade',
    description: 'Deposit mode: `awaiting_usdt` with the deposit address and `sendBefore`; attach the hash with PATCH. Balance mode: the USDT is '
      + 'collected from the custodial balance at create. Retry-safe by `partnerReference`.',
    requestSchema: 'SellOrderRequest', success: { 202: { description: 'The order, not settled yet', schema: 'Order' } },
    errors: [...ORDER_CREATE_ERRORS, 'USDT_DEPOSIT_ADDRESS_NOT_ALLOCATED', 'PAYOUT_ACCOUNT_NOT_FOUND', 'PAYOUT_ACCOUNT_NOT_PAYABLE',
      'INSUFFICIENT_USDT_BALANCE', 'USDT_COLLECTION_FAILED', 'WALLET_OWNERSHIP_CHECK_FAILED', 'BRIDGE_NOT_CONFIGURED', 'CUSTOMER_WALLETS_DISABLED'] },

  { method: 'get', path: '/v1/orders/{id}', operationId: 'getOrder', tag: 'Orders', summary: 'Read an order', scope: 'read',
    success: { 200: { description: 'The order', schema: 'Order' } }, errors: ['ORDER_NOT_FOUND'] },

  { method: 'patch', path: '/v1/orders/{id}', operationId: 'attachTxHash', tag: 'Orders', summary: 'Attach the deposit\'s transaction hash to a sell order', scope: 'trade',
    description: 'The same hash again answers 200; a different one is refused, never overwritten.',
    requestSchema: 'AttachTxHashRequest', success: { 200: { description: 'The hash is attached', schema: 'TxHashAttached' } },
    errors: ['ORDER_NOT_FOUND', 'TX_HASH_ALREADY_ATTACHED', 'TX_HASH_ALREADY_USED', 'ORDER_NOT_SELL_SIDE', 'ORDER_NOT_AWAITING_USDT'] },

  { method: 'get', path: '/v1/balances', operationId: 'listBalances', tag: 'Balances and funding', summary: 'Balances', scope: 'read',
    description: 'KES, then USDT, then USD; `available` is posted minus held.',
    success: { 200: { description: 'The balances', schema: 'Balance[]' } }, errors: [] },

  { method: 'get', path: '/v1/funding', operationId: 'getFundingInstructions', tag: 'Balances and funding', summary: 'Funding instructions', scope: 'read',
    success: { 200: { description: 'How to fund the KES and USDT balances', schema: 'FundingInstructions' } }, errors: ['USDT_DEPOSIT_ADDRESS_NOT_ALLOCATED'] },

  { method: 'post', path: '/v1/funding/mobile-money-push', operationId: 'pushMobileMoneyPrompt', tag: 'Balances and funding',
    summary: 'Send a payment prompt to a payer\'s handset', scope: 'funding',
    description: 'No idempotency key: a repeated call is a second prompt. Completion is `credit.received`; a declined or ignored prompt emits no event.',
    requestSchema: 'MobileMoneyPushRequest', success: { 202: { description: 'The prompt is out', schema: 'MobileMoneyPush' } },
    errors: ['MOBILE_MONEY_PUSH_REJECTED', 'MOBILE_MONEY_PUSH_UNAVAILABLE', 'PARTNER_VA_NOT_ALLOCATED', 'PARTNER_VA_ACTIVATING', 'PARTNER_VA_SUSPENDED'] },

  { method: 'get', path: '/v1/payout-destinations', operationId: 'listPayoutDestinations', tag: 'Balances and funding',
    summary: 'Active payout destinations (read-only)', scope: 'read',
    success: { 200: { description: 'Active destinations, account numbers masked', schema: 'PayoutDestination[]' } }, errors: [] },

  { method: 'post', path: '/v1/admins', operationId: 'registerAdmin', tag: 'Administrators', summary: 'Register an administrator', scope: 'wallets',
    description: 'The e-mail domain must equal the partner\'s configured domain. The same e-mail again answers 200 with the existing administrator.',
    requestSchema: 'AdminRequest', success: { 201: { description: 'Registered', schema: 'Administrator' }, 200: { description: 'Already registered', schema: 'Administrator' } },
    errors: [] },
  { method: 'get', path: '/v1/admins', operationId: 'listAdmins', tag: 'Administrators', summary: 'Active administrators', scope: 'read',
    success: { 200: { description: 'Earliest registered first', schema: 'Administrator[]' } }, errors: [] },
  { method: 'delete', path: '/v1/admins/{id}', operationId: 'removeAdmin', tag: 'Administrators', summary: 'Remove an administrator', scope: 'wallets',
    description: 'Every wallet approval code already sent to that person lapses.',
    success: { 204: { description: 'Removed' } }, errors: ['ADMIN_NOT_FOUND'] },

  { method: 'post', path: '/v1/wallets', operationId: 'registerWallet', tag: 'Wallets', summary: 'Register a withdrawal address', scope: 'wallets',
    description: 'A 6-digit code goes to the earliest-registered administrator. The same address again answers 200 with the same registration.',
    requestSchema: 'WalletRequest',
    success: { 201: { description: 'Registered; a code was sent', schema: 'Wallet' }, 200: { description: 'The existing registration', schema: 'Wallet' } },
    errors: ['NO_ADMINISTRATOR_REGISTERED'] },
  { method: 'get', path: '/v1/wallets', operationId: 'listWallets', tag: 'Wallets', summary: 'Wallets (revoked ones left out)', scope: 'read',
    success: { 200: { description: 'Newest first', schema: 'Wallet[]' } }, errors: [] },
  { method: 'post', path: '/v1/wallets/{id}/confirm', operationId: 'confirmWallet', tag: 'Wallets', summary: 'Confirm a wallet with the administrator\'s code', scope: 'wallets',
    requestSchema: 'WalletConfirmRequest', success: { 200: { description: 'Now pending_service_approval', schema: 'Wallet' } },
    errors: ['WALLET_NOT_FOUND', 'WALLET_CODE_INCORRECT', 'WALLET_CODE_EXPIRED', 'WALLET_CODE_LOCKED'] },
  { method: 'delete', path: '/v1/wallets/{id}', operationId: 'revokeWallet', tag: 'Wallets', summary: 'Revoke a wallet (immediate, irreversible)', scope: 'wallets',
    success: { 204: { description: 'Revoked' } }, errors: ['WALLET_NOT_FOUND'] },

  { method: 'post', path: '/v1/transfers', operationId: 'createTransfer', tag: 'Transfers', summary: 'Send KES (needs a confirmation code)', scope: 'payouts',
    description: 'Nothing reaches the bank until the code is confirmed. The same idempotencyKey and body again answers the original with '
      + '`Idempotent-Replayed: true`; another body is 409. The bank checks the beneficiary name when the confirmed transfer is handed to it: '
      + 'a name it does not match is never refused here; the transfer reads `failed` with `failureCode` `TRANSFER_NAME_MISMATCH` and '
      + '`transfer.failed` follows (the hold voided, the daily cap given back).',
    requestSchema: 'TransferRequest', success: { 202: { description: 'Awaiting confirmation', schema: 'Transfer', headers: [REPLAYED] } },
    errors: TRANSFER_CREATE_ERRORS },
  { method: 'get', path: '/v1/transfers/{id}', operationId: 'getTransfer', tag: 'Transfers', summary: 'Read a transfer', scope: 'read',
    success: { 200: { description: 'The transfer', schema: 'Transfer' } }, errors: ['TRANSFER_NOT_FOUND'] },
  { method: 'post', path: '/v1/transfers/batch', operationId: 'createTransferBatch', tag: 'Transfers', summary: 'Send KES to many (one code)', scope: 'payouts',
    description: 'Each item is validated as a single transfer; a refused item is reported with its reason and the others proceed. '
      + 'As for a single transfer, a beneficiary name the bank does not match fails that item after confirmation (`TRANSFER_NAME_MISMATCH`).',
    requestSchema: 'TransferBatchRequest', success: { 202: { description: 'Awaiting confirmation', schema: 'TransferBatch', headers: [REPLAYED] } },
    errors: TRANSFER_CREATE_ERRORS },
  { method: 'get', path: '/v1/transfers/batch/{id}', operationId: 'getTransferBatch', tag: 'Transfers', summary: 'Read a batch', scope: 'read',
    success: { 200: { description: 'The batch with every item outcome', schema: 'TransferBatch' } }, errors: ['BATCH_NOT_FOUND'] },

  { method: 'post', path: '/v1/usdt/sends', operationId: 'createUsdtSend', tag: 'USDT sends', summary: 'Send USDT to an active wallet (needs a confirmation code)', scope: 'payouts',
    requestSchema: 'UsdtSendRequest', success: { 202: { description: 'Awaiting confirmation', schema: 'UsdtSend', headers: [REPLAYED] } },
    errors: ['IDEMPOTENCY_KEY_REUSED', 'NO_ADMINISTRATOR_REGISTERED', 'WALLET_NOT_FOUND', 'USDT_SEND_BELOW_MINIMUM', 'USDT_SEND_EXCEEDS_PER_SEND_CAP',
      'DAILY_CAP_EXCEEDED', 'ORDER_DAILY_CAP_RATE_UNAVAILABLE', 'INSUFFICIENT_USDT_BALANCE', 'KILL_SWITCH_ENGAGED', 'PARTNER_SUSPENDED'] },
  { method: 'get', path: '/v1/usdt/sends/{id}', operationId: 'getUsdtSend', tag: 'USDT sends', summary: 'Read a USDT send', scope: 'read',
    success: { 200: { description: 'The send', schema: 'UsdtSend' } }, errors: ['SEND_NOT_FOUND'] },

  { method: 'post', path: '/v1/confirmations/{id}', operationId: 'confirm', tag: 'Confirmations', summary: 'Confirm a transfer, batch or send with its code', scope: 'payouts',
    requestSchema: 'ConfirmRequest', success: { 200: { description: 'Confirmed; poll the subject or wait for its webhook', schema: 'ConfirmationResult' } },
    errors: ['CONFIRMATION_NOT_FOUND', 'CONFIRMATION_CODE_INCORRECT', 'CONFIRMATION_EXPIRED', 'CONFIRMATION_LOCKED', 'CONFIRMATION_ALREADY_USED'] },
  { method: 'post', path: '/v1/confirmations/{id}/resend', operationId: 'resendConfirmation', tag: 'Confirmations', summary: 'Resend the code (no body)', scope: 'payouts',
    description: 'Cooldown ladder 30 s, 60 s, 120 s, 300 s, then 409 CONFIRMATION_RESEND_LIMIT.',
    success: { 200: { description: 'A new code is out', schema: 'ConfirmationHandle' } },
    errors: ['CONFIRMATION_NOT_FOUND', 'CONFIRMATION_RESEND_COOLDOWN', 'CONFIRMATION_RESEND_LIMIT', 'CONFIRMATION_EXPIRED', 'CONFIRMATION_ALREADY_USED', 'CONFIRMATION_LOCKED'] },

  { method: 'post', path: '/v1/collections', operationId: 'createCollection', tag: 'Collections', summary: 'Open a USD collection', scope: 'collections',
    description: 'The same partnerReference and body again answers 200 with the original and `Idempotent-Replayed: true`; another body is 409.',
    requestSchema: 'CollectionRequest',
    success: { 201: { description: 'Opened', schema: 'Collection' }, 200: { description: 'The original (a replay)', schema: 'Collection', headers: [REPLAYED] } },
    errors: ['IDEMPOTENCY_KEY_REUSED'] },
  { method: 'get', path: '/v1/collections', operationId: 'listCollections', tag: 'Collections', summary: 'List collections (newest first)', scope: 'read',
    query: [
      { name: 'reference', description: 'A collection reference', schema: { type: 'string' } },
      { name: 'status', description: 'One status', schema: { type: 'string', enum: ['open', 'received', 'crediting', 'credited', 'refunded', 'expired'] } },
      { name: 'from', description: 'Inclusive lower bound on creation time (ISO 8601)', schema: { type: 'string' } },
      { name: 'to', description: 'Exclusive upper bound on creation time (ISO 8601)', schema: { type: 'string' } },
      { name: 'limit', description: '1-100, default 50', schema: { type: 'integer', minimum: 1, maximum: 100 } },
      { name: 'cursor', description: 'X-Next-Cursor of the previous page', schema: { type: 'string' } },
    ],
    success: { 200: { description: 'A page of collections', schema: 'Collection[]', headers: [NEXT_CURSOR] } }, errors: [] },
  { method: 'get', path: '/v1/collections/{id}', operationId: 'getCollection', tag: 'Collections', summary: 'Read a collection', scope: 'read',
    success: { 200: { description: 'The collection', schema: 'Collection' } }, errors: ['COLLECTION_NOT_FOUND'] },

  { method: 'post', path: '/v1/sandbox/rates', operationId: 'sandboxSetRate', tag: 'Sandbox', summary: 'Pin the sandbox rate feed', scope: 'sandbox',
    requestSchema: 'SandboxRateRequest', success: { 200: { description: 'The pinned rate', schema: 'SandboxRate' } }, errors: [] },
  { method: 'post', path: '/v1/sandbox/kes-credits', operationId: 'sandboxKesCredit', tag: 'Sandbox', summary: 'A paybill credit lands in the KES account', scope: 'sandbox',
    requestSchema: 'KesCreditRequest', success: { 201: { description: 'The credit', schema: 'KesCredit' } }, errors: ['PARTNER_VA_NOT_ALLOCATED'] },
  { method: 'post', path: '/v1/sandbox/usdt-deposits', operationId: 'sandboxUsdtDeposit', tag: 'Sandbox', summary: 'A USDT deposit lands on the deposit address', scope: 'sandbox',
    requestSchema: 'UsdtDepositRequest', success: { 201: { description: 'The deposit', schema: 'UsdtDeposit' } }, errors: ['USDT_DEPOSIT_ADDRESS_NOT_ALLOCATED'] },
  { method: 'post', path: '/v1/sandbox/wallets/{id}/approve', operationId: 'sandboxApproveWallet', tag: 'Sandbox', summary: 'The service\'s review approves a wallet', scope: 'sandbox',
    success: { 200: { description: 'The wallet, active', schema: 'Wallet' } }, errors: ['WALLET_NOT_FOUND', 'WALLET_NOT_AWAITING_REVIEW'] },
  { method: 'get', path: '/v1/sandbox/outbox', operationId: 'sandboxOutbox', tag: 'Sandbox', summary: 'Messages e-mailed to the partner\'s people (codes)', scope: 'sandbox',
    success: { 200: { description: 'Newest first, at most 100', schema: 'OutboxEntry[]' } }, errors: [] },
  { method: 'post', path: '/v1/sandbox/collections/{id}/deposits', operationId: 'sandboxCollectionDeposit', tag: 'Sandbox', summary: 'A USD deposit arrives for a collection', scope: 'sandbox',
    requestSchema: 'CollectionDepositRequest',
    success: { 201: { description: 'The deposit', schema: 'CollectionDeposit' }, 200: { description: 'The same depositId again', schema: 'CollectionDeposit' } },
    errors: ['COLLECTION_NOT_FOUND', 'IDEMPOTENCY_KEY_REUSED'] },
  { method: 'post', path: '/v1/sandbox/collections/{id}/expire', operationId: 'sandboxExpireCollection', tag: 'Sandbox', summary: 'End an open collection\'s lifetime now', scope: 'sandbox',
    success: { 200: { description: 'The collection', schema: 'Collection' } }, errors: ['COLLECTION_NOT_FOUND'] },
  { method: 'post', path: '/v1/sandbox/mobile-money-pushes/{pushId}/approve', operationId: 'sandboxApproveMobileMoneyPush', tag: 'Sandbox',
    summary: 'The payer approves the prompt (credit.received follows)', scope: 'sandbox',
    success: { 200: { description: 'The prompt\'s outcome', schema: 'MobileMoneyPushOutcome' } }, errors: ['MOBILE_MONEY_PUSH_NOT_FOUND'] },
  { method: 'post', path: '/v1/sandbox/mobile-money-pushes/{pushId}/decline', operationId: 'sandboxDeclineMobileMoneyPush', tag: 'Sandbox',
    summary: 'The payer declines the prompt (no event)', scope: 'sandbox',
    success: { 200: { description: 'The prompt\'s outcome', schema: 'MobileMoneyPushOutcome' } }, errors: ['MOBILE_MONEY_PUSH_NOT_FOUND'] },
];
