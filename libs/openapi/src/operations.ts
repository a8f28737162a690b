/**
 * The partner plane's operation table: one entry per operation, keyed by its
 * operationId. The gateway registers its routes, their scopes and their request
 * validation from it; the API reference is built from it. Statuses of refusals
 * come from the error catalogue, never from here. What every read, every page
 * of a list and every sandbox helper share is added by read(), page() and
 * sandbox(), so an entry states only what is its own.
 */
import type { ErrorCode } from '@platform/errors';
import type { z } from 'zod';
import { defineOperations, OperationSpec, SuccessAnswer } from './contract/operation';
import {
  adminRequestSchema,
  askNotBelowBid,
  attachTxHashSchema,
  buyOrderSchema,
  collectionDepositSchema,
  collectionListQuerySchema,
  orderListQuerySchema,
  transferListQuerySchema,
  mobileMoneyPushListQuerySchema,
  statementQuerySchema,
  transferBatchListQuerySchema,
  usdtSendListQuerySchema,
  collectionRequestSchema,
  confirmRequestSchema,
  EXACTLY_ONE_AMOUNT_SCHEMA,
  exactlyOneAmount,
  kesCreditSchema,
  mobileMoneyPushSchema,
  quoteRequestSchema,
  sandboxRateSchema,
  sellOrderSchema,
  transferBatchRequestSchema,
  transferRequestSchema,
  usdtDepositSchema,
  usdtSendRequestSchema,
  walletConfirmSchema,
  walletRequestSchema,
} from './contract/requests';
import { eventListQuerySchema, FEED_LIMIT_DEFAULT, webhookDeliveryListQuerySchema } from './contract/event-requests';

/** Every /v1 operation may answer these (authentication, rate limit, scope, body, routing, plumbing). */
export const COMMON_ERROR_CODES: ErrorCode[] = [
  'VALIDATION_FAILED',
  'UNAUTHORIZED',
  'INSUFFICIENT_SCOPE',
  'NOT_FOUND',
  'PAYLOAD_TOO_LARGE',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
];

const ORDER_CREATE_ERRORS: ErrorCode[] = [
  'QUOTE_NOT_FOUND',
  'KILL_SWITCH_ENGAGED',
  'SWAPS_DISABLED',
  'PARTNER_SUSPENDED',
  'TREASURY_ACCOUNT_UNAVAILABLE',
  'TREASURY_ACCOUNT_NOT_REGISTERED',
  'QUOTE_SIDE_MISMATCH',
  'ORDER_EXCEEDS_PER_ORDER_CAP',
  'ORDER_EXCEEDS_DAILY_CAP',
  'ORDER_DAILY_CAP_RATE_UNAVAILABLE',
  'QUOTE_EXPIRED_OR_CONSUMED',
  'PARTNER_NOT_FOUND',
];
const TRANSFER_CREATE_ERRORS: ErrorCode[] = [
  'IDEMPOTENCY_KEY_REUSED',
  'NO_ADMINISTRATOR_REGISTERED',
  'TRANSFER_EXCEEDS_PER_TRANSFER_CAP',
  'DAILY_CAP_EXCEEDED',
  'ORDER_DAILY_CAP_RATE_UNAVAILABLE',
  'INSUFFICIENT_KES_BALANCE',
  'KILL_SWITCH_ENGAGED',
  'PARTNER_SUSPENDED',
  'PARTNER_VA_NOT_ALLOCATED',
  'PARTNER_VA_ACTIVATING',
  'PARTNER_VA_SUSPENDED',
];
/** The partner-wide wrong-code budget, as the confirm operations state it. */
const WRONG_CODE_BUDGET_TEXT =
  "once 20 wrong codes (the service's default) fall within 24 hours, every confirmation and resend of the partner " +
  "answers 403 PARTNER_CONFIRMATIONS_LOCKED, even with the right code, until the service's operators clear the lock (waiting does not lift it); " +
  'the wrong code that spends the budget itself still answers CONFIRMATION_CODE_INCORRECT.';
const REPLAYED = 'Idempotent-Replayed';
const NEXT_CURSOR = 'X-Next-Cursor';
const READ_ONLY = 'Reads only; safe to repeat.';

/** An operation's refusals beyond the common ones: the 404 its notFound names first, then the others. */
function refusals(notFound: ErrorCode | undefined, errors: ErrorCode[] = []): ErrorCode[] {
  return notFound ? [notFound, ...errors] : errors;
}

/** A read of the partner's own data: GET under the read scope, answering 200. */
interface ReadSpec {
  path: string;
  tag: string;
  summary: string;
  /** What it answers; the sentence saying it only reads and is safe to repeat is added. */
  description: string;
  answer: SuccessAnswer;
  notFound?: ErrorCode;
  /** Refusals beyond the common ones and `notFound`. */
  errors?: ErrorCode[];
}

function read(spec: ReadSpec): OperationSpec {
  const { answer, errors = [], ...rest } = spec;
  return {
    ...rest,
    method: 'get',
    scope: 'read',
    description: `${spec.description} ${READ_ONLY}`,
    success: { 200: answer },
    errors: refusals(spec.notFound, errors),
  };
}

/** A read of one page of a list: its query filters and pages it; the next page's cursor comes in X-Next-Cursor. */
function page<Q extends z.AnyZodObject>(spec: ReadSpec & { query: Q }): OperationSpec & { query: Q } {
  return { ...read({ ...spec, answer: { ...spec.answer, headers: [NEXT_CURSOR] } }), query: spec.query };
}

type SandboxSpec = Omit<OperationSpec, 'tag' | 'scope' | 'availability' | 'errors'> & {
  /** Refusals beyond the common ones and `notFound`. */
  errors?: ErrorCode[];
};

/** A sandbox helper: listed under Sandbox, needing the sandbox scope, served in sandbox mode only. */
function sandbox<S extends SandboxSpec>(
  spec: S,
): Omit<S, 'errors'> & Pick<OperationSpec, 'tag' | 'scope' | 'availability' | 'errors'> {
  return {
    ...spec,
    tag: 'Sandbox',
    scope: 'sandbox',
    availability: 'sandbox',
    errors: refusals(spec.notFound, spec.errors),
  };
}

export const OPERATIONS = defineOperations({
  getHealth: {
    method: 'get',
    path: '/v1/health',
    tag: 'Service',
    summary: 'Service status',
    scope: 'read',
    description:
      'Always 200 while the gateway answers: `ok`, or `degraded` when a core service (trading, ledger) is not answering. ' +
      'Needs the same signed headers as every /v1 operation, so it also proves a credential and a clock.',
    success: { 200: { description: 'The service status', schema: 'Health' } },
    errors: [],
  },

  createQuote: {
    method: 'post',
    path: '/v1/quotes',
    tag: 'Quotes',
    summary: 'Quote a buy or a sell',
    scope: 'trade',
    description:
      'Locks a rate from the live feed until `expiresAt` (single use). Give exactly one of `kesAmount` and `usdtAmount`; the other ' +
      "is computed, always rounded in the service's favour: buy by KES floors the USDT to 6 decimals, buy by USDT ceils the KES to 2, " +
      'sell by USDT floors the KES, sell by KES ceils the USDT. The fee is `min(cap, ceil2(kesAmount × percentBps / 10000) + flat)`; ' +
      '`kesTotalAmount` is the principal plus the fee on a buy and minus it on a sell. No live rate answers 503 RATE_UNAVAILABLE.',
    request: {
      name: 'QuoteRequest',
      schema: quoteRequestSchema,
      crossFieldCheck: exactlyOneAmount,
      crossFieldSchema: EXACTLY_ONE_AMOUNT_SCHEMA,
    },
    success: { 201: { description: 'The quote', schema: 'Quote' } },
    errors: ['RATE_UNAVAILABLE', 'FEE_EXCEEDS_PROCEEDS', 'FEE_PRICING_INVALID'],
  },

  createBuyOrder: {
    method: 'post',
    path: '/v1/orders/buy',
    tag: 'Orders',
    summary: 'Buy USDT with KES',
    scope: 'trade',
    description:
      "Debit-first partners: the KES total is held on the partner's KES balance at create (`kesDebit.status` `reserved`). Pay-in partners: " +
      '`awaiting_payment` with `paymentInstructions`. The same `partnerReference` again returns the original order with its original status ' +
      "(the repeat's quote is not consumed). Settlement is signalled by webhook; polling GET /v1/orders/{id} is the fallback.",
    request: { name: 'BuyOrderRequest', schema: buyOrderSchema },
    success: { 202: { description: 'The order, not settled yet', schema: 'Order' } },
    errors: [
      ...ORDER_CREATE_ERRORS,
      'EXPECTED_AMOUNT_MISMATCH',
      'PARTNER_VA_NOT_ALLOCATED',
      'PARTNER_VA_ACTIVATING',
      'PARTNER_VA_SUSPENDED',
      'INSUFFICIENT_KES_BALANCE',
      'KES_BALANCE_UNREADABLE',
      'KES_DEBIT_FAILED',
      'KES_DEBIT_AMBIGUOUS',
      'WALLET_NOT_FOUND',
      'WALLET_OWNERSHIP_CHECK_FAILED',
      'BRIDGE_NOT_CONFIGURED',
      'CUSTOMER_WALLETS_DISABLED',
    ],
  },

  createSellOrder: {
    method: 'post',
    path: '/v1/orders/sell',
    tag: 'Orders',
    summary: 'Sell USDT for KES',
    scope: 'trade',
    description:
      "Deposit mode: `awaiting_usdt` with the deposit address and `sendBefore`; attach the deposit's hash with PATCH. Balance mode: the USDT is " +
      'collected from the custodial balance at create. Retry-safe by `partnerReference`. Nothing is paid out before the order settles.',
    request: { name: 'SellOrderRequest', schema: sellOrderSchema },
    success: { 202: { description: 'The order, not settled yet', schema: 'Order' } },
    errors: [
      ...ORDER_CREATE_ERRORS,
      'USDT_DEPOSIT_ADDRESS_NOT_ALLOCATED',
      'PAYOUT_ACCOUNT_NOT_FOUND',
      'PAYOUT_ACCOUNT_NOT_PAYABLE',
      'INSUFFICIENT_USDT_BALANCE',
      'USDT_COLLECTION_FAILED',
      'WALLET_OWNERSHIP_CHECK_FAILED',
      'BRIDGE_NOT_CONFIGURED',
      'CUSTOMER_WALLETS_DISABLED',
    ],
  },

  listOrders: page({
    path: '/v1/orders',
    tag: 'Orders',
    summary: 'List orders (newest first)',
    description:
      "A page of the partner's orders, buys and sells, newest first, filtered by the query; each order exactly as `GET /v1/orders/{id}` " +
      "answers it. The next page's cursor comes in `X-Next-Cursor` (absent on the last page); orders created while you page come before " +
      'the first page, so a page never shifts or repeats. Each parameter at most once; an unknown one is refused by name.',
    query: orderListQuerySchema,
    answer: { description: 'A page of orders', schema: 'Order[]' },
  }),
  getOrder: read({
    path: '/v1/orders/{id}',
    tag: 'Orders',
    summary: 'Read an order',
    notFound: 'ORDER_NOT_FOUND',
    description:
      "The order as it stands; the shape follows the side and the partner's funding mode. Another partner's order is 404.",
    answer: { description: 'The order', schema: 'Order' },
  }),

  attachTxHash: {
    method: 'patch',
    path: '/v1/orders/{id}',
    tag: 'Orders',
    summary: "Attach the deposit's transaction hash to a sell order",
    scope: 'trade',
    notFound: 'ORDER_NOT_FOUND',
    description:
      'Attributes a USDT deposit to this sell order. The same hash again answers 200; a different one is refused, never overwritten.',
    request: { name: 'AttachTxHashRequest', schema: attachTxHashSchema },
    success: { 200: { description: 'The hash is attached', schema: 'TxHashAttached' } },
    errors: [
      'ORDER_NOT_FOUND',
      'TX_HASH_ALREADY_ATTACHED',
      'TX_HASH_ALREADY_USED',
      'ORDER_NOT_SELL_SIDE',
      'ORDER_NOT_AWAITING_USDT',
    ],
  },

  listBalances: read({
    path: '/v1/balances',
    tag: 'Balances and funding',
    summary: 'Balances',
    description: 'KES, then USDT, then USD; `available` is posted minus held.',
    answer: { description: 'The balances', schema: 'Balance[]' },
  }),
  listAccountTransactions: page({
    path: '/v1/balances/{accountId}/transactions',
    tag: 'Balances and funding',
    summary: 'Statement of one balance (newest first)',
    notFound: 'ACCOUNT_NOT_FOUND',
    description:
      "Every movement of one of the partner's balances (an `accountId` from `GET /v1/balances`), newest first: credits, orders, " +
      'transfers, USDT sends, collections, reversals, and the holds that take an amount out of `available` until its movement completes. ' +
      'Each line carries its signed amount, the available balance right after it and the id of the resource that moved it. Within any ' +
      "window the amounts sum exactly to the change in the available balance: the newest line's `availableAfter` minus the oldest line's " +
      "`availableAfter` plus its own `amount`. The next page's cursor comes in `X-Next-Cursor`; movements made while you page come before " +
      "the first page. Another partner's account, or an unknown one, is 404.",
    query: statementQuerySchema,
    answer: { description: 'A page of statement lines', schema: 'StatementLine[]' },
  }),

  getFundingInstructions: read({
    path: '/v1/funding',
    tag: 'Balances and funding',
    summary: 'Funding instructions',
    description:
      'How to top up the KES balance (the paybill entry, while the KES account is active) and the USDT balance (the permanent ' +
      'deposit address). Neither is tied to an order.',
    answer: { description: 'How to fund the KES and USDT balances', schema: 'FundingInstructions' },
    errors: ['USDT_DEPOSIT_ADDRESS_NOT_ALLOCATED'],
  }),

  pushMobileMoneyPrompt: {
    method: 'post',
    path: '/v1/funding/mobile-money-push',
    tag: 'Balances and funding',
    summary: "Send a payment prompt to a payer's handset",
    scope: 'funding',
    description:
      "Answers once the prompt is out; the credit lands in the partner's own KES account. No idempotency key: a repeated call is a second " +
      'prompt. Completion is `credit.received`; a declined or ignored prompt emits no event.',
    request: { name: 'MobileMoneyPushRequest', schema: mobileMoneyPushSchema },
    success: { 202: { description: 'The prompt is out', schema: 'MobileMoneyPush' } },
    errors: [
      'MOBILE_MONEY_PUSH_REJECTED',
      'MOBILE_MONEY_PUSH_UNAVAILABLE',
      'PARTNER_VA_NOT_ALLOCATED',
      'PARTNER_VA_ACTIVATING',
      'PARTNER_VA_SUSPENDED',
    ],
  },
  listMobileMoneyPushes: page({
    path: '/v1/funding/mobile-money-push',
    tag: 'Balances and funding',
    summary: 'List payment prompts (newest first)',
    description:
      "A page of the partner's mobile-money prompts, newest first, each with its status, amount and the payer's number masked. " +
      "Prompts carry no idempotencyKey or partnerReference, so there is no filter on either. The next page's cursor comes in " +
      '`X-Next-Cursor`; prompts made while you page come before the first page. Each parameter at most once.',
    query: mobileMoneyPushListQuerySchema,
    answer: { description: 'A page of prompts', schema: 'MobileMoneyPushRecord[]' },
  }),

  listPayoutDestinations: read({
    path: '/v1/payout-destinations',
    tag: 'Balances and funding',
    summary: 'Active payout destinations (read-only)',
    description:
      'The accounts a sell order can pay out to, oldest first, account numbers masked. They are registered by the service, never through this API.',
    answer: { description: 'Active destinations, account numbers masked', schema: 'PayoutDestination[]' },
  }),

  registerAdmin: {
    method: 'post',
    path: '/v1/admins',
    tag: 'Administrators',
    summary: 'Register an administrator',
    scope: 'wallets',
    description:
      "The e-mail domain must equal the partner's configured domain exactly. The same e-mail again answers 200 with the existing administrator. " +
      'Every active administrator, the new one included, is e-mailed a notice of the addition (it never carries a code). A new administrator ' +
      'receives no code during a waiting period (24 hours; in the sandbox × the time scale) unless the partner has no other active administrator: ' +
      'meanwhile the codes keep going to the administrators who already receive them, who can remove the new one if they did not expect it.',
    request: { name: 'AdminRequest', schema: adminRequestSchema },
    success: {
      201: { description: 'Registered', schema: 'Administrator' },
      200: { description: 'Already registered', schema: 'Administrator' },
    },
    errors: [],
  },
  listAdmins: read({
    path: '/v1/admins',
    tag: 'Administrators',
    summary: 'Active administrators',
    description:
      'Earliest registered first: the earliest one whose waiting period is over receives wallet approval and confirmation codes.',
    answer: { description: 'Earliest registered first', schema: 'Administrator[]' },
  }),
  removeAdmin: {
    method: 'delete',
    path: '/v1/admins/{id}',
    tag: 'Administrators',
    summary: 'Remove an administrator',
    scope: 'wallets',
    notFound: 'ADMIN_NOT_FOUND',
    description:
      'Every wallet approval code already sent to that person lapses, and every administrator active before the removal, the removed one ' +
      'included, is e-mailed a notice of it (no code). The last administrator who may receive codes cannot be removed (409 ' +
      "ADMIN_LAST_CODE_RECIPIENT): register the successor first, and remove this one once the successor's waiting period is over. An administrator " +
      'still in its waiting period can always be removed. An administrator already removed is 404.',
    success: { 204: { description: 'Removed' } },
    errors: ['ADMIN_NOT_FOUND', 'ADMIN_LAST_CODE_RECIPIENT'],
  },

  registerWallet: {
    method: 'post',
    path: '/v1/wallets',
    tag: 'Wallets',
    summary: 'Register a withdrawal address',
    scope: 'wallets',
    description:
      'A 6-digit code goes to the earliest-registered administrator whose waiting period is over; after the code, the service reviews the address. The same address ' +
      'again answers 200 with the same registration (a fresh code only when the last one lapsed).',
    request: { name: 'WalletRequest', schema: walletRequestSchema },
    success: {
      201: { description: 'Registered; a code was sent', schema: 'Wallet' },
      200: { description: 'The existing registration', schema: 'Wallet' },
    },
    errors: ['NO_ADMINISTRATOR_REGISTERED'],
  },
  listWallets: read({
    path: '/v1/wallets',
    tag: 'Wallets',
    summary: 'Wallets (revoked ones left out)',
    description: 'Newest first. Only an `active` wallet can receive value.',
    answer: { description: 'Newest first', schema: 'Wallet[]' },
  }),
  confirmWallet: {
    method: 'post',
    path: '/v1/wallets/{id}/confirm',
    tag: 'Wallets',
    summary: "Confirm a wallet with the administrator's code",
    scope: 'wallets',
    notFound: 'WALLET_NOT_FOUND',
    description:
      'Moves the wallet to `pending_service_approval`. Five wrong codes cancel the code; from then on every attempt answers WALLET_CODE_LOCKED.',
    request: { name: 'WalletConfirmRequest', schema: walletConfirmSchema },
    success: { 200: { description: 'Now pending_service_approval', schema: 'Wallet' } },
    errors: ['WALLET_NOT_FOUND', 'WALLET_CODE_INCORRECT', 'WALLET_CODE_EXPIRED', 'WALLET_CODE_LOCKED'],
  },
  revokeWallet: {
    method: 'delete',
    path: '/v1/wallets/{id}',
    tag: 'Wallets',
    summary: 'Revoke a wallet (immediate, irreversible)',
    scope: 'wallets',
    notFound: 'WALLET_NOT_FOUND',
    description:
      'An order whose delivery wallet is revoked before release does not deliver to it. A wallet already revoked is 404.',
    success: { 204: { description: 'Revoked' } },
    errors: ['WALLET_NOT_FOUND'],
  },

  createTransfer: {
    method: 'post',
    path: '/v1/transfers',
    tag: 'Transfers',
    summary: 'Send KES (needs a confirmation code)',
    scope: 'payouts',
    description:
      'Validates the destination, checks caps and balance, holds the amount and e-mails a code. Nothing reaches the bank until the ' +
      'code is confirmed. The same idempotencyKey and body again answers the original with `Idempotent-Replayed: true`; another body is 409. ' +
      'The bank checks the beneficiary name when the confirmed transfer is handed to it: a name it does not match is never refused here; ' +
      'the transfer reads `failed` with `failureCode` `TRANSFER_NAME_MISMATCH` and `transfer.failed` follows (the hold voided, the daily cap given back).',
    request: { name: 'TransferRequest', schema: transferRequestSchema },
    success: { 202: { description: 'Awaiting confirmation', schema: 'Transfer', headers: [REPLAYED] } },
    errors: TRANSFER_CREATE_ERRORS,
  },
  listTransfers: page({
    path: '/v1/transfers',
    tag: 'Transfers',
    summary: 'List transfers (newest first)',
    description:
      "A page of the partner's KES transfers, batch items included, newest first, filtered by the query; each as " +
      "`GET /v1/transfers/{id}` answers it. The next page's cursor comes in `X-Next-Cursor` (absent on the last page); transfers created " +
      'while you page come before the first page, so a page never shifts or repeats. Each parameter at most once; an unknown one is refused by name.',
    query: transferListQuerySchema,
    answer: { description: 'A page of transfers', schema: 'Transfer[]' },
  }),
  getTransfer: read({
    path: '/v1/transfers/{id}',
    tag: 'Transfers',
    summary: 'Read a transfer',
    notFound: 'TRANSFER_NOT_FOUND',
    description: 'The transfer as it stands.',
    answer: { description: 'The transfer', schema: 'Transfer' },
  }),
  createTransferBatch: {
    method: 'post',
    path: '/v1/transfers/batch',
    tag: 'Transfers',
    summary: 'Send KES to many (one code)',
    scope: 'payouts',
    description:
      'Each item is validated as a single transfer; a refused item is reported with its reason and the others proceed. One code ' +
      "confirms every accepted item. Replays work as for a single transfer, keyed by the batch's idempotencyKey. As for a single transfer, a " +
      'beneficiary name the bank does not match fails that item after confirmation (`TRANSFER_NAME_MISMATCH`).',
    request: { name: 'TransferBatchRequest', schema: transferBatchRequestSchema },
    success: { 202: { description: 'Awaiting confirmation', schema: 'TransferBatch', headers: [REPLAYED] } },
    errors: TRANSFER_CREATE_ERRORS,
  },
  getTransferBatch: read({
    path: '/v1/transfers/batch/{id}',
    tag: 'Transfers',
    summary: 'Read a batch',
    notFound: 'BATCH_NOT_FOUND',
    description: "The batch with every item's outcome.",
    answer: { description: 'The batch with every item outcome', schema: 'TransferBatch' },
  }),
  listTransferBatches: page({
    path: '/v1/transfers/batch',
    tag: 'Transfers',
    summary: 'List batches (newest first)',
    description:
      "A page of the partner's batches, newest first, each as `GET /v1/transfers/batch/{id}` answers it; `status` filters on the " +
      "batch's status as shown there. The next page's cursor comes in `X-Next-Cursor`; batches created while you page come before the " +
      'first page. Each parameter at most once; an unknown one is refused by name.',
    query: transferBatchListQuerySchema,
    answer: { description: 'A page of batches', schema: 'TransferBatch[]' },
  }),

  createUsdtSend: {
    method: 'post',
    path: '/v1/usdt/sends',
    tag: 'USDT sends',
    summary: 'Send USDT to an active wallet (needs a confirmation code)',
    scope: 'payouts',
    description:
      "The destination must be an active wallet; the amount is checked against the service's minimum, the per-send cap and the shared " +
      'daily cap, then held, and a code is e-mailed. Replays work as for transfers.',
    request: { name: 'UsdtSendRequest', schema: usdtSendRequestSchema },
    success: { 202: { description: 'Awaiting confirmation', schema: 'UsdtSend', headers: [REPLAYED] } },
    errors: [
      'IDEMPOTENCY_KEY_REUSED',
      'NO_ADMINISTRATOR_REGISTERED',
      'WALLET_NOT_FOUND',
      'USDT_SEND_BELOW_MINIMUM',
      'USDT_SEND_EXCEEDS_PER_SEND_CAP',
      'DAILY_CAP_EXCEEDED',
      'ORDER_DAILY_CAP_RATE_UNAVAILABLE',
      'INSUFFICIENT_USDT_BALANCE',
      'KILL_SWITCH_ENGAGED',
      'PARTNER_SUSPENDED',
    ],
  },
  getUsdtSend: read({
    path: '/v1/usdt/sends/{id}',
    tag: 'USDT sends',
    summary: 'Read a USDT send',
    notFound: 'SEND_NOT_FOUND',
    description: 'The send as it stands.',
    answer: { description: 'The send', schema: 'UsdtSend' },
  }),
  listUsdtSends: page({
    path: '/v1/usdt/sends',
    tag: 'USDT sends',
    summary: 'List USDT sends (newest first)',
    description:
      "A page of the partner's USDT sends, newest first, filtered by the query; each as `GET /v1/usdt/sends/{id}` answers it. " +
      "The next page's cursor comes in `X-Next-Cursor`; sends created while you page come before the first page. Each parameter at most " +
      'once; an unknown one is refused by name.',
    query: usdtSendListQuerySchema,
    answer: { description: 'A page of sends', schema: 'UsdtSend[]' },
  }),

  confirm: {
    method: 'post',
    path: '/v1/confirmations/{id}',
    tag: 'Confirmations',
    summary: 'Confirm a transfer, batch or send with its code',
    scope: 'payouts',
    notFound: 'CONFIRMATION_NOT_FOUND',
    description:
      'Hands the subject off for execution; poll the subject or wait for its webhook. Each wrong code counts: the fifth cancels the code, ' +
      "and from then on every attempt answers CONFIRMATION_LOCKED. Wrong codes also count across all of the partner's confirmations: " +
      `${WRONG_CODE_BUDGET_TEXT} A right code never counts.`,
    request: { name: 'ConfirmRequest', schema: confirmRequestSchema },
    success: {
      200: { description: 'Confirmed; poll the subject or wait for its webhook', schema: 'ConfirmationResult' },
    },
    errors: [
      'CONFIRMATION_NOT_FOUND',
      'CONFIRMATION_CODE_INCORRECT',
      'CONFIRMATION_EXPIRED',
      'CONFIRMATION_LOCKED',
      'CONFIRMATION_ALREADY_USED',
      'PARTNER_CONFIRMATIONS_LOCKED',
    ],
  },
  resendConfirmation: {
    method: 'post',
    path: '/v1/confirmations/{id}/resend',
    tag: 'Confirmations',
    summary: 'Resend the code (no body)',
    scope: 'payouts',
    notFound: 'CONFIRMATION_NOT_FOUND',
    description:
      'A new code with a new `expiresAt`. Cooldown ladder 30 s, 60 s, 120 s, 300 s (429 CONFIRMATION_RESEND_COOLDOWN with ' +
      '`retryAfterSeconds` inside it), then 409 CONFIRMATION_RESEND_LIMIT. A new code brings no new tries: wrong codes count per confirmation ' +
      "across its codes. While the partner's confirmations are locked (403 PARTNER_CONFIRMATIONS_LOCKED, see the confirm operation) no code is sent.",
    success: { 200: { description: 'A new code is out', schema: 'ConfirmationHandle' } },
    errors: [
      'CONFIRMATION_NOT_FOUND',
      'CONFIRMATION_RESEND_COOLDOWN',
      'CONFIRMATION_RESEND_LIMIT',
      'CONFIRMATION_EXPIRED',
      'CONFIRMATION_ALREADY_USED',
      'CONFIRMATION_LOCKED',
      'PARTNER_CONFIRMATIONS_LOCKED',
    ],
  },

  createCollection: {
    method: 'post',
    path: '/v1/collections',
    tag: 'Collections',
    summary: 'Open a USD collection',
    scope: 'collections',
    description:
      'A reference plus a dedicated USD deposit account. The same partnerReference and body again answers 200 with the original and ' +
      '`Idempotent-Replayed: true`; another body is 409. Each contribution is credited net of the fee (`collection.received`).',
    request: { name: 'CollectionRequest', schema: collectionRequestSchema },
    success: {
      201: { description: 'Opened', schema: 'Collection' },
      200: { description: 'The original (a replay)', schema: 'Collection', headers: [REPLAYED] },
    },
    errors: ['IDEMPOTENCY_KEY_REUSED'],
  },
  listCollections: page({
    path: '/v1/collections',
    tag: 'Collections',
    summary: 'List collections (newest first)',
    description:
      "A page of the partner's collections, newest first, filtered by the query. The next page's cursor comes in `X-Next-Cursor` " +
      '(absent on the last page). Each parameter at most once; an unknown one is refused by name.',
    query: collectionListQuerySchema,
    answer: { description: 'A page of collections', schema: 'Collection[]' },
  }),
  getCollection: read({
    path: '/v1/collections/{id}',
    tag: 'Collections',
    summary: 'Read a collection',
    notFound: 'COLLECTION_NOT_FOUND',
    description: 'The collection as it stands; amounts are null until a deposit arrives.',
    answer: { description: 'The collection', schema: 'Collection' },
  }),

  listEvents: page({
    path: '/v1/events',
    tag: 'Webhooks',
    summary: 'The events feed (catch up after downtime)',
    description:
      'Every event your webhooks carry, oldest first in the order the service accepted them, each exactly the body its webhook ' +
      'delivers. Kept at least 30 days. To catch up after downtime, page with `after` = the id of the last event you processed, until a page ' +
      'comes back without `X-Next-Cursor` (it then holds the newest events); paging never skips or repeats an event, even while new ones ' +
      `arrive. \`X-Next-Cursor\` is the id to pass as \`after\` for the next page. \`limit\` defaults to ${FEED_LIMIT_DEFAULT}. ` +
      'An event you also received by webhook has the same `id`: dedupe on it. Each parameter at most once; an unknown one is refused by name.',
    query: eventListQuerySchema,
    answer: { description: 'A page of events, oldest first', schema: 'Event[]' },
    errors: ['EVENT_CURSOR_UNKNOWN', 'EVENT_CURSOR_EXPIRED'],
  }),
  listWebhookDeliveries: page({
    path: '/v1/webhook-deliveries',
    tag: 'Webhooks',
    summary: 'List your webhook deliveries (newest first)',
    description:
      'A page of your webhook deliveries, newest first, optionally one status: each with its delivery id (the X-Service-Delivery ' +
      'header), event id and type, attempts in the current round, the last answer (HTTP status code, or the class of a failure without one) ' +
      "and the next attempt's time. The next page's cursor comes in `X-Next-Cursor` (absent on the last page). Each parameter at most once; " +
      'an unknown one is refused by name.',
    query: webhookDeliveryListQuerySchema,
    answer: { description: 'A page of deliveries', schema: 'WebhookDelivery[]' },
  }),
  retryWebhookDelivery: {
    method: 'post',
    path: '/v1/webhook-deliveries/{id}/retry',
    tag: 'Webhooks',
    summary: 'Retry a webhook delivery',
    scope: 'webhooks',
    notFound: 'DELIVERY_NOT_FOUND',
    description:
      'A fresh round of 7 attempts, the first due now, for a `dead` or `failing` delivery (or a `held` one once your endpoint is set), ' +
      'keeping its delivery id, so your receiver dedupes it as before. Safe to repeat: a delivery already `pending` is answered as it is, and so ' +
      'is a `delivered` one (read it again from the events feed). At most 10 retries that re-open a delivery per minute per partner (the ' +
      "service's default), else 429 WEBHOOK_RETRY_LIMITED with `retryAfterSeconds`; repeats of an open delivery are not counted. No body.",
    success: { 200: { description: 'The delivery after the retry', schema: 'WebhookDelivery' } },
    errors: ['DELIVERY_NOT_FOUND', 'WEBHOOK_RETRY_LIMITED'],
  },

  sandboxSetRate: sandbox({
    method: 'post',
    path: '/v1/sandbox/rates',
    summary: 'Pin the sandbox rate feed',
    description:
      "Pins this partner's sandbox rate (ask not below bid). Unpinned, the rate is a random walk around 129.50 with a 50 bps spread.",
    request: { name: 'SandboxRateRequest', schema: sandboxRateSchema, crossFieldCheck: askNotBelowBid },
    success: { 200: { description: 'The pinned rate', schema: 'SandboxRate' } },
  }),
  sandboxKesCredit: sandbox({
    method: 'post',
    path: '/v1/sandbox/kes-credits',
    summary: 'A paybill credit lands in the KES account',
    description:
      "The credit clears at once and `credit.received` follows; a `reference` equal to a pay-in order's paymentReference matches that order. " +
      'Each call is another credit.',
    request: { name: 'KesCreditRequest', schema: kesCreditSchema },
    success: { 201: { description: 'The credit', schema: 'KesCredit' } },
    errors: ['PARTNER_VA_NOT_ALLOCATED'],
  }),
  sandboxUsdtDeposit: sandbox({
    method: 'post',
    path: '/v1/sandbox/usdt-deposits',
    summary: 'A USDT deposit lands on the deposit address',
    description:
      'Matched to a sell order by its hash (`claimed`), held while sell orders await a hash (`held_for_attribution`), else credited with ' +
      '`usdt_credit.received`. The same hash again answers the first deposit.',
    request: { name: 'UsdtDepositRequest', schema: usdtDepositSchema },
    success: { 201: { description: 'The deposit', schema: 'UsdtDeposit' } },
    errors: ['USDT_DEPOSIT_ADDRESS_NOT_ALLOCATED'],
  }),
  sandboxApproveWallet: sandbox({
    method: 'post',
    path: '/v1/sandbox/wallets/{id}/approve',
    summary: "The service's review approves a wallet",
    notFound: 'WALLET_NOT_FOUND',
    description: 'For a wallet an administrator confirmed: it becomes `active` with screening `cleared`.',
    success: { 200: { description: 'The wallet, active', schema: 'Wallet' } },
    errors: ['WALLET_NOT_AWAITING_REVIEW'],
  }),
  sandboxOutbox: sandbox({
    method: 'get',
    path: '/v1/sandbox/outbox',
    summary: "Messages e-mailed to the partner's people (codes, notices)",
    description:
      'The newest 100 messages, newest first: the only place a sandbox approval or confirmation code can be read. Notices of an ' +
      'administrator added or removed (`administrator_added`, `administrator_removed`, about `subjectType` `administrator`) have `code` null.',
    success: { 200: { description: 'Newest first, at most 100', schema: 'OutboxEntry[]' } },
  }),
  sandboxCollectionDeposit: sandbox({
    method: 'post',
    path: '/v1/sandbox/collections/{id}/deposits',
    summary: 'A USD deposit arrives for a collection',
    notFound: 'COLLECTION_NOT_FOUND',
    description:
      'Answers with the deposit and the collection as it stands after it. The same depositId again answers the first deposit (200); ' +
      'another amount with it is 409.',
    request: { name: 'CollectionDepositRequest', schema: collectionDepositSchema },
    success: {
      201: { description: 'The deposit', schema: 'CollectionDeposit' },
      200: { description: 'The same depositId again', schema: 'CollectionDeposit' },
    },
    errors: ['IDEMPOTENCY_KEY_REUSED'],
  }),
  sandboxExpireCollection: sandbox({
    method: 'post',
    path: '/v1/sandbox/collections/{id}/expire',
    summary: "End an open collection's lifetime now",
    notFound: 'COLLECTION_NOT_FOUND',
    description: "The sandbox clock ends an open collection's lifetime now: it reads `expired`.",
    success: { 200: { description: 'The collection', schema: 'Collection' } },
  }),
  sandboxApproveMobileMoneyPush: sandbox({
    method: 'post',
    path: '/v1/sandbox/mobile-money-pushes/{pushId}/approve',
    notFound: 'MOBILE_MONEY_PUSH_NOT_FOUND',
    summary: 'The payer approves the prompt (credit.received follows)',
    description: 'The amount lands in the KES account and `credit.received` follows.',
    success: { 200: { description: "The prompt's outcome", schema: 'MobileMoneyPushOutcome' } },
  }),
  sandboxDeclineMobileMoneyPush: sandbox({
    method: 'post',
    path: '/v1/sandbox/mobile-money-pushes/{pushId}/decline',
    notFound: 'MOBILE_MONEY_PUSH_NOT_FOUND',
    summary: 'The payer declines the prompt (no event)',
    description: 'Nothing lands and no event follows.',
    success: { 200: { description: "The prompt's outcome", schema: 'MobileMoneyPushOutcome' } },
  }),
});

export type OperationId = keyof typeof OPERATIONS;
export type Operation = OperationSpec & { operationId: OperationId };
type Entry<K extends OperationId> = (typeof OPERATIONS)[K];
/** The validated body an operation's handler receives (after normalisation, e.g. amounts at their scale). */
export type BodyOf<K extends OperationId> =
  Entry<K> extends { request: { schema: infer S extends z.ZodTypeAny } } ? z.output<S> : undefined;
/** The validated query an operation's handler receives. */
export type QueryOf<K extends OperationId> =
  Entry<K> extends { query: infer Q extends z.ZodTypeAny } ? z.output<Q> : undefined;

/** The table as a list, in its order. */
export const OPERATION_LIST: readonly Operation[] = (Object.keys(OPERATIONS) as OperationId[]).map((operationId) => ({
  ...(OPERATIONS[operationId] as OperationSpec),
  operationId,
}));
