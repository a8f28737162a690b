/**
 * The statuses partners see, stated once for requests (filters), responses and
 * webhooks, and the one list each service's own status type is built from. A
 * module of its own, loading nothing: a service reads its lists from here
 * (`@platform/openapi/dist/contract/statuses`) without loading the package's
 * index, zod or the OpenAPI document. A service may add states partners never
 * see (a payout's `creating`, a wallet's `revoked`, a deposit's
 * `unattributed`); it adds them to these lists, never restates them.
 */
export const ORDER_STATUSES = [
  'awaiting_usdt',
  'awaiting_payment',
  'funds_reserved',
  'settled',
  'rejected',
  'expired',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
/** Where a debit-first buy's KES debit stands (a pay-in buy's once its payment is held). */
export const KES_DEBIT_STATUSES = ['reserved', 'debited', 'released', 'reversal_pending', 'reversed'] as const;
export type KesDebitStatus = (typeof KES_DEBIT_STATUSES)[number];
export const COLLECTION_STATUSES = ['open', 'received', 'crediting', 'credited', 'refunded', 'expired'] as const;
export type CollectionStatus = (typeof COLLECTION_STATUSES)[number];
/** Transfers, USDT sends and batches: each waits for a confirmation code, then settles or fails. */
export const CONFIRMABLE_STATUSES = ['awaiting_confirmation', 'confirmed', 'settled', 'failed', 'expired'] as const;
export type ConfirmableStatus = (typeof CONFIRMABLE_STATUSES)[number];
/** A batch's status, derived from its code and its transfers: `completed` once every accepted item is settled or failed. */
export const BATCH_STATUSES = ['awaiting_confirmation', 'confirmed', 'completed', 'expired', 'failed'] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];
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
export type MobileMoneyPushStatus = (typeof MOBILE_MONEY_PUSH_STATUSES)[number];
/** A USDT deposit to the partner's address: credited at once, held for an order to claim, or claimed by one. */
export const USDT_DEPOSIT_STATUSES = ['credited', 'held_for_attribution', 'claimed'] as const;
export type UsdtDepositStatus = (typeof USDT_DEPOSIT_STATUSES)[number];
/** A withdrawal address: the administrator's code, then the service's review (a revoked one is never shown). */
export const WALLET_STATUSES = ['pending_partner_approval', 'pending_service_approval', 'active', 'rejected'] as const;
export type WalletStatus = (typeof WALLET_STATUSES)[number];
/** Screening moves with the service's review: pending until reviewed, then cleared or rejected. */
export const WALLET_SCREENING_STATUSES = ['pending', 'cleared', 'rejected'] as const;
export type WalletScreeningStatus = (typeof WALLET_SCREENING_STATUSES)[number];
/** The statuses a partner may list its webhook deliveries by. */
export const WEBHOOK_DELIVERY_FILTERS = ['delivered', 'failing', 'dead'] as const;
export type WebhookDeliveryFilter = (typeof WEBHOOK_DELIVERY_FILTERS)[number];
/** Every status a delivery may read as (the filters, plus the open and held ones). */
export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'failing', 'delivered', 'dead', 'held'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];
/** What a message in the sandbox outbox is about: a code (wallet approval, confirmations) or a notice to administrators. */
export const MESSAGE_KINDS = [
  'wallet_approval',
  'transfer_confirmation',
  'usdt_send_confirmation',
  'batch_confirmation',
  'administrator_added',
  'administrator_removed',
] as const;
export type MessageKind = (typeof MESSAGE_KINDS)[number];
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
