/** The statuses partners see, stated once for requests (filters), responses and webhooks. */
export const ORDER_STATUSES = [
  'awaiting_usdt',
  'awaiting_payment',
  'funds_reserved',
  'settled',
  'rejected',
  'expired',
] as const;
export const COLLECTION_STATUSES = ['open', 'received', 'crediting', 'credited', 'refunded', 'expired'] as const;
/** Transfers, USDT sends and batches: each waits for a confirmation code, then settles or fails. */
export const CONFIRMABLE_STATUSES = ['awaiting_confirmation', 'confirmed', 'settled', 'failed', 'expired'] as const;
/** A batch's status, derived from its code and its transfers: `completed` once every accepted item is settled or failed. */
export const BATCH_STATUSES = ['awaiting_confirmation', 'confirmed', 'completed', 'expired', 'failed'] as const;
/**
 * A mobile-money prompt: `pending` (out, unanswered), `approved` (the credit is being booked), `credited`, `declined`,
 * `expired` (unanswered within its lifetime), `rejected` (the bank refused to send it), `unavailable` (the bank did not answer).
 */
export const MOBILE_MONEY_PUSH_STATUSES = [
  'pending',
  'approved',
  'credited',
  'declined',
  'expired',
  'rejected',
  'unavailable',
] as const;
/**
 * What moved a balance, on a statement line. `hold_placed` takes an amount out of
 * available until its movement completes (`hold_released` gives it back, and the
 * movement's own line takes what it moved); `opening_balance` carries the
 * balance from before statements were kept; `adjustment` is any other movement
 * the service made.
 */
export const STATEMENT_LINE_TYPES = [
  'credit',
  'order',
  'fee',
  'transfer',
  'usdt_send',
  'collection',
  'reversal',
  'hold_placed',
  'hold_released',
  'opening_balance',
  'adjustment',
] as const;
