// The rolling 24-hour cap's usages in trading (usage id = order id): what every order
// reservation sums over the partner's window. Absent when the cap lives elsewhere: then the
// coverage check (seed/index.mjs) names the table that holds the order's usage instead.
import { literal } from '../lib/clone-sql.js';
import { tableExists } from './clone.mjs';

export const tradingCapUsages = {
  name: 'trading daily-cap usages',
  database: 'svc_trading',
  required: false,
  async applies(client, template) {
    if (!(await tableExists(client, 'cap_usages'))) return false;
    const { rows } = await client.query('SELECT 1 FROM cap_usages WHERE usage_id = $1', [template.orderId]);
    return rows.length > 0;
  },
  async plans(template) {
    return [{
      table: 'cap_usages',
      where: `tpl.usage_id = ${literal(template.orderId)}::uuid`,
      requiredColumns: ['usage_id', 'partner_id', 'amount_kes', 'released_at', 'created_at'],
    }];
  },
};
