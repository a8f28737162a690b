// Trading's record of an order: the quote it consumed and the order row. Clones are settled
// debit-first buys like the template, each with a partner reference of its own.
import { literal } from '../lib/clone-sql.js';

export const tradingOrders = {
  name: 'trading orders and quotes',
  database: 'svc_trading',
  /** An order always has these rows: their absence is a schema this seeder does not know. */
  required: true,
  async plans(template, tag) {
    return [
      {
        table: 'quotes',
        where: `tpl.quote_id = ${literal(template.quoteId)}::uuid`,
        requiredColumns: ['quote_id', 'partner_id', 'consumed_at'],
      },
      {
        table: 'orders',
        where: `tpl.order_id = ${literal(template.orderId)}::uuid`,
        requiredColumns: ['order_id', 'partner_id', 'quote_id', 'status'],
        // (partner_id, partner_reference) is the create's idempotency key: one per clone.
        overrides: { partner_reference: `${literal(`seed-${tag}-`)} || s.i` },
      },
    ];
  },
};
