/** The statuses partners see, stated once for requests (filters), responses and webhooks. */
export const ORDER_STATUSES = ['awaiting_usdt', 'awaiting_payment', 'funds_reserved', 'settled', 'rejected', 'expired'] as const;
export const COLLECTION_STATUSES = ['open', 'received', 'crediting', 'credited', 'refunded', 'expired'] as const;
/** Transfers, USDT sends and batches: each waits for a confirmation code, then settles or fails. */
export const CONFIRMABLE_STATUSES = ['awaiting_confirmation', 'confirmed', 'settled', 'failed', 'expired'] as const;
