/** The twelve event types partners receive, stated once for the feed's filter and the webhooks' documentation. */
export const WEBHOOK_EVENT_TYPES = [
  'order.funds_confirmed',
  'order.settled',
  'order.rejected',
  'order.expired',
  'credit.received',
  'transfer.settled',
  'transfer.failed',
  'usdt_send.settled',
  'usdt_send.failed',
  'usdt_credit.received',
  'collection.received',
  'confirmation.expired',
] as const;
