/**
 * The one catalogue of stable error codes. A code is what partners branch on
 * (`message` in the HTTP envelope); its HTTP status and its gRPC status are
 * fixed here and nowhere else. Codes are never renamed or reused.
 *
 * grpc: the gRPC status code number (see @grpc/grpc-js `status`):
 * 3 INVALID_ARGUMENT, 5 NOT_FOUND, 6 ALREADY_EXISTS, 7 PERMISSION_DENIED,
 * 8 RESOURCE_EXHAUSTED, 9 FAILED_PRECONDITION, 13 INTERNAL, 14 UNAVAILABLE,
 * 16 UNAUTHENTICATED.
 */
export interface ErrorDefinition {
  readonly httpStatus: number;
  readonly grpc: number;
  readonly description: string;
}

const define = (httpStatus: number, grpc: number, description: string): ErrorDefinition => ({
  httpStatus,
  grpc,
  description,
});

const INVALID_ARGUMENT = 3;
const NOT_FOUND = 5;
const PERMISSION_DENIED = 7;
const RESOURCE_EXHAUSTED = 8;
const FAILED_PRECONDITION = 9;
const INTERNAL = 13;
const UNAVAILABLE = 14;
const UNAUTHENTICATED = 16;

export const ERROR_CATALOGUE = {
  // Request shape and plumbing: validation, authentication, scopes, rate limits.
  VALIDATION_FAILED: define(
    400,
    INVALID_ARGUMENT,
    'The request failed validation; `message` names every offending field.',
  ),
  UNAUTHORIZED: define(401, UNAUTHENTICATED, 'Authentication failed. Uniform for every reason.'),
  INSUFFICIENT_SCOPE: define(
    403,
    PERMISSION_DENIED,
    'The credential is authenticated but lacks the scope for this endpoint.',
  ),
  NOT_FOUND: define(404, NOT_FOUND, 'No such route.'),
  PAYLOAD_TOO_LARGE: define(413, INVALID_ARGUMENT, 'The request body exceeds 64 KiB.'),
  RATE_LIMITED: define(
    429,
    RESOURCE_EXHAUSTED,
    'Too many requests for this partner; wait Retry-After-partner seconds.',
  ),
  SERVICE_UNAVAILABLE: define(503, UNAVAILABLE, 'An internal dependency did not answer in time; retry shortly.'),
  INTERNAL_ERROR: define(500, INTERNAL, 'An unexpected error; reported to the service operators.'),

  // Quotes.
  QUOTE_NOT_FOUND: define(404, NOT_FOUND, 'Unknown quoteId.'),
  RATE_UNAVAILABLE: define(503, UNAVAILABLE, 'No live rate; no quote is issued. Retry shortly.'),
  FEE_EXCEEDS_PROCEEDS: define(
    422,
    FAILED_PRECONDITION,
    'On a sell the fee equals or exceeds what would be paid out. Quote a larger amount.',
  ),
  FEE_PRICING_INVALID: define(503, UNAVAILABLE, "The partner's stored pricing cannot be applied; the service's fault."),

  // Orders.
  QUOTE_EXPIRED_OR_CONSUMED: define(
    409,
    FAILED_PRECONDITION,
    'The quote is past expiresAt or already used. Get a new quote.',
  ),
  QUOTE_SIDE_MISMATCH: define(409, FAILED_PRECONDITION, 'A buy quote on the sell route or the reverse.'),
  ORDER_NOT_FOUND: define(404, NOT_FOUND, "Unknown order, or another partner's."),
  ORDER_EXCEEDS_PER_ORDER_CAP: define(422, FAILED_PRECONDITION, 'Above the per-order ceiling.'),
  ORDER_EXCEEDS_DAILY_CAP: define(
    422,
    FAILED_PRECONDITION,
    'Breaches the rolling 24-hour total of orders, transfers and committed USDT sends.',
  ),
  ORDER_DAILY_CAP_RATE_UNAVAILABLE: define(
    503,
    UNAVAILABLE,
    'No live rate to convert committed USDT sends for the cap check.',
  ),
  ORDER_NOT_BUY_SIDE: define(409, FAILED_PRECONDITION, 'A buy-only action on a sell order.'),
  ORDER_NOT_SELL_SIDE: define(409, FAILED_PRECONDITION, 'A sell-only action on a buy order.'),
  ORDER_NOT_AWAITING_USDT: define(
    409,
    FAILED_PRECONDITION,
    'A hash attached to an order no longer awaiting a deposit.',
  ),
  EXPECTED_AMOUNT_MISMATCH: define(409, FAILED_PRECONDITION, "expectedUsdtAmount differs from the quote's usdtAmount."),
  PARTNER_SUSPENDED: define(409, FAILED_PRECONDITION, 'The partner account cannot create orders.'),
  PARTNER_VA_NOT_ALLOCATED: define(503, UNAVAILABLE, 'No KES collection account linked yet.'),
  PARTNER_VA_ACTIVATING: define(503, UNAVAILABLE, 'The KES account has not finished activating.'),
  PARTNER_VA_SUSPENDED: define(503, UNAVAILABLE, 'The KES collection account is suspended.'),
  PARTNER_NOT_FOUND: define(404, NOT_FOUND, 'The partner account could not be resolved.'),
  SWAPS_DISABLED: define(503, UNAVAILABLE, 'Swaps are disabled platform-wide.'),
  KILL_SWITCH_ENGAGED: define(503, UNAVAILABLE, 'An operator halted USDT/KES movement.'),
  KES_BALANCE_UNREADABLE: define(503, UNAVAILABLE, 'The balance could not be read.'),
  INSUFFICIENT_KES_BALANCE: define(
    422,
    FAILED_PRECONDITION,
    'Available KES below the quoted total; the quote is not consumed.',
  ),
  TREASURY_ACCOUNT_UNAVAILABLE: define(503, UNAVAILABLE, 'The settlement account is unavailable.'),
  TREASURY_ACCOUNT_NOT_REGISTERED: define(503, UNAVAILABLE, 'No settlement account for the currency.'),
  KES_DEBIT_FAILED: define(
    503,
    UNAVAILABLE,
    'The bank cleanly refused the debit; the order is rejected and nothing was taken.',
  ),
  KES_DEBIT_AMBIGUOUS: define(503, UNAVAILABLE, 'The debit outcome is unknown; the order stays funds_reserved.'),
  CUSTOMER_WALLETS_DISABLED: define(503, UNAVAILABLE, 'The wallets rail is switched off.'),
  INSUFFICIENT_USDT_BALANCE: define(422, FAILED_PRECONDITION, 'USDT balance below the order amount; order rejected.'),
  USDT_COLLECTION_FAILED: define(503, UNAVAILABLE, 'USDT collection was attempted and refused; order rejected.'),
  WALLET_OWNERSHIP_CHECK_FAILED: define(503, UNAVAILABLE, 'The wallet failed its ownership check; nothing collected.'),
  BRIDGE_NOT_CONFIGURED: define(503, UNAVAILABLE, "The service's custody configuration is incomplete."),
  TX_HASH_ALREADY_ATTACHED: define(409, FAILED_PRECONDITION, 'The order already has a different hash.'),
  TX_HASH_ALREADY_USED: define(409, FAILED_PRECONDITION, 'The hash is attributed to another order.'),
  PAYOUT_ACCOUNT_NOT_PAYABLE: define(
    409,
    FAILED_PRECONDITION,
    'The payout account is closed, frozen or unable to receive.',
  ),
  PAYOUT_ACCOUNT_NOT_FOUND: define(404, NOT_FOUND, 'Unknown payout destination.'),
  // Ours, after the per-resource pattern: a balance's accountId that is unknown, malformed or another partner's.
  ACCOUNT_NOT_FOUND: define(404, NOT_FOUND, 'Unknown or foreign balance account.'),
  USDT_DEPOSIT_ADDRESS_NOT_ALLOCATED: define(503, UNAVAILABLE, 'No USDT deposit address allocated yet.'),

  // Funding.
  MOBILE_MONEY_PUSH_REJECTED: define(
    422,
    FAILED_PRECONDITION,
    'The bank declined the prompt, typically an unregistered number.',
  ),
  MOBILE_MONEY_PUSH_UNAVAILABLE: define(
    503,
    UNAVAILABLE,
    'No answer from the bank; the prompt may or may not have reached the payer.',
  ),

  // Wallets and administrators.
  WALLET_NOT_FOUND: define(404, NOT_FOUND, 'Unknown, foreign or revoked wallet.'),
  ADMIN_NOT_FOUND: define(404, NOT_FOUND, 'Unknown or already removed administrator.'),
  WALLET_CODE_INCORRECT: define(400, INVALID_ARGUMENT, 'The approval code is wrong.'),
  WALLET_CODE_EXPIRED: define(403, PERMISSION_DENIED, 'The approval code expired or was cancelled.'),
  WALLET_CODE_LOCKED: define(403, PERMISSION_DENIED, 'Too many wrong codes; the code is cancelled.'),
  NO_ADMINISTRATOR_REGISTERED: define(409, FAILED_PRECONDITION, 'No administrator is registered to receive the code.'),
  ADMIN_LAST_CODE_RECIPIENT: define(
    409,
    FAILED_PRECONDITION,
    "The administrator is the last one who may receive codes: register another, and remove this one once the new one's waiting period has ended.",
  ),
  WALLET_NOT_AWAITING_REVIEW: define(
    409,
    FAILED_PRECONDITION,
    'Service review (operator `ops wallet approve|reject`, or the sandbox approve helper) of a wallet that is not pending_service_approval; not in the contract, which leaves review outside the interface.',
  ),

  // Transfers, sends, confirmations.
  TRANSFER_NOT_FOUND: define(404, NOT_FOUND, 'Unknown or foreign transfer.'),
  BATCH_NOT_FOUND: define(404, NOT_FOUND, 'Unknown or foreign batch.'),
  SEND_NOT_FOUND: define(404, NOT_FOUND, 'Unknown or foreign USDT send.'),
  CONFIRMATION_NOT_FOUND: define(404, NOT_FOUND, 'Unknown or foreign confirmation.'),
  // Ours, after the per-resource not-found pattern of the rest: a push id
  // that is unknown or another partner's, so a partner can tell it from an unknown route.
  MOBILE_MONEY_PUSH_NOT_FOUND: define(
    404,
    NOT_FOUND,
    'Unknown or foreign mobile-money prompt (sandbox answer helpers).',
  ),
  IDEMPOTENCY_KEY_REUSED: define(409, FAILED_PRECONDITION, 'The idempotencyKey was used with a different body.'),
  TRANSFER_EXCEEDS_PER_TRANSFER_CAP: define(422, FAILED_PRECONDITION, 'Above the per-transfer ceiling.'),
  USDT_SEND_BELOW_MINIMUM: define(422, FAILED_PRECONDITION, 'Below the minimum USDT send.'),
  USDT_SEND_EXCEEDS_PER_SEND_CAP: define(422, FAILED_PRECONDITION, 'Above the per-send ceiling.'),
  DAILY_CAP_EXCEEDED: define(422, FAILED_PRECONDITION, 'Breaches the shared rolling 24-hour cap.'),
  CONFIRMATION_CODE_INCORRECT: define(400, INVALID_ARGUMENT, 'The confirmation code is wrong.'),
  CONFIRMATION_EXPIRED: define(409, FAILED_PRECONDITION, 'The confirmation code expired.'),
  CONFIRMATION_LOCKED: define(409, FAILED_PRECONDITION, 'Too many wrong codes; the confirmation is cancelled.'),
  CONFIRMATION_ALREADY_USED: define(409, FAILED_PRECONDITION, 'The confirmation was already used.'),
  CONFIRMATION_RESEND_COOLDOWN: define(
    429,
    RESOURCE_EXHAUSTED,
    'The previous code is within its cooldown; see retryAfterSeconds.',
  ),
  CONFIRMATION_RESEND_LIMIT: define(409, FAILED_PRECONDITION, 'No more resends for this confirmation.'),
  // Ours: 403 and not 429, because waiting does not lift it (an operator does) and clients retry a 429 by themselves.
  PARTNER_CONFIRMATIONS_LOCKED: define(
    403,
    PERMISSION_DENIED,
    "Too many wrong codes across all of the partner's confirmations (a rolling 24-hour budget); every confirmation and resend is refused, even with the right code, until the service's operators clear the lock.",
  ),

  // Ledger: internal refusals between services, never shown to partners as such (callers map them,
  // e.g. LEDGER_INSUFFICIENT_FUNDS to INSUFFICIENT_KES_BALANCE).
  LEDGER_INSUFFICIENT_FUNDS: define(
    422,
    FAILED_PRECONDITION,
    "Internal: the account's available balance (posted - held) is below the amount.",
  ),
  LEDGER_HOLD_ALREADY_RESOLVED: define(
    409,
    FAILED_PRECONDITION,
    'Internal: the hold was already posted, voided or expired by a different request.',
  ),
  LEDGER_ID_REUSED: define(
    409,
    FAILED_PRECONDITION,
    'Internal: an entry or hold id was reused with a different request body.',
  ),
  LEDGER_HOLD_NOT_FOUND: define(404, NOT_FOUND, 'Internal: unknown hold id.'),
  LEDGER_ACCOUNT_NOT_FOUND: define(404, NOT_FOUND, 'Internal: unknown ledger account id.'),
  LEDGER_DEPOSIT_NOT_FOUND: define(404, NOT_FOUND, 'Internal: no USDT deposit with this hash for the partner.'),
  LEDGER_DEPOSIT_NOT_CLAIMABLE: define(
    409,
    FAILED_PRECONDITION,
    'Internal: the deposit was already credited to the balance or claimed by another order.',
  ),

  // Trading: internal refusals between services.
  DAILY_CAP_USAGE_ID_REUSED: define(
    409,
    FAILED_PRECONDITION,
    'Internal: a daily cap usageId was reused with a different request body.',
  ),

  // Payouts: internal refusals between services.
  PAYOUT_INSTRUCTION_ID_REUSED: define(
    409,
    FAILED_PRECONDITION,
    'Internal: a payout instructionId was reused with a different request body.',
  ),
  PAYOUT_INSTRUCTION_NOT_FOUND: define(404, NOT_FOUND, 'Internal: unknown payout instruction id.'),

  // Collections.
  COLLECTION_NOT_FOUND: define(404, NOT_FOUND, 'Unknown or foreign collection.'),

  // Webhook delivery. DELIVERY_NOT_FOUND is also the partner's answer for a delivery id that is unknown or another partner's.
  DELIVERY_NOT_FOUND: define(404, NOT_FOUND, 'Unknown or foreign webhook delivery.'),
  // The events feed: `after` must be an event of the partner's still within the feed's retention window.
  EVENT_CURSOR_UNKNOWN: define(
    400,
    INVALID_ARGUMENT,
    "The `after` event id is not one of this partner's events. Page from an id the feed or a webhook gave you, or omit `after` to start from the oldest event kept.",
  ),
  EVENT_CURSOR_EXPIRED: define(
    400,
    INVALID_ARGUMENT,
    'The `after` event is older than the feed keeps (at least 30 days). Omit `after` to start from the oldest event kept, and reconcile older activity with the list operations.',
  ),
  WEBHOOK_RETRY_LIMITED: define(
    429,
    RESOURCE_EXHAUSTED,
    'Too many webhook delivery retries this minute for this partner; see retryAfterSeconds.',
  ),
} as const satisfies Record<string, ErrorDefinition>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CATALOGUE, value);
}
