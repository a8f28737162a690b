// webhook-delivery's record of an order's or a transfer's events: the deliveries whose body
// carries its id (order.created, order.settled, transfer.settled, …) and their attempts.
// Each delivery and each attempt gets a clone id of its own (roles delivery_a…, event_a…,
// attempt_a…), and each cloned delivery a feed position of its own, above every position
// taken when the seeding starts (plus FEED_HEADROOM for rows the feed's positioner numbers
// meanwhile), so the partner's events feed pages through the clones as through its own events. Rows go in through the
// partitioned parents (`webhook_deliveries`, `webhook_delivery_attempts`), so each lands in its
// week; an attempt's `delivery_created_at` is its delivery's `created_at`, moved by the same
// shift as every time column, so it is filed in its delivery's week. Used by the history bench
// only: the volume section leaves these rows out (seed/index.mjs, NOT_CLONED).
import { literal } from '../lib/clone-sql.js';
import { lettered, SeedSchemaError, tableExists } from './clone.mjs';

/** Positions left free above the highest at seeding, for events the positioner numbers while the seeding runs. */
const FEED_HEADROOM = 1_000_000;

const inList = (ids) => ids.map((id) => `${literal(id)}::uuid`).join(', ');

export const webhookDeliveries = {
  name: 'webhook deliveries and attempts of the template',
  database: 'svc_webhook_delivery',
  required: true,
  async applies(client, template) {
    if (!(await tableExists(client, 'webhook_deliveries'))) return false;
    const { rows } = await client.query('SELECT 1 FROM webhook_deliveries WHERE strpos(body, $1) > 0 LIMIT 1', [
      template.subjectId,
    ]);
    return rows.length > 0;
  },
  /** Every delivery of the template must be over (delivered): a clone of one in flight would be picked up and sent. */
  async extraIds(client, template) {
    const { rows: deliveries } = await client.query(
      `SELECT delivery_id::text AS id, event_id::text AS "eventId", status FROM webhook_deliveries
        WHERE strpos(body, $1) > 0 ORDER BY created_at, delivery_id`,
      [template.subjectId],
    );
    const open = deliveries.filter((row) => row.status !== 'delivered');
    if (open.length > 0)
      throw new SeedSchemaError(
        `the template ${template.kind}'s deliveries ${open.map((row) => row.id).join(', ')} are not delivered`,
      );
    const { rows: attempts } = await client.query(
      'SELECT id::text AS id FROM webhook_delivery_attempts WHERE delivery_id = ANY($1::uuid[]) ORDER BY delivery_id, attempt_number',
      [deliveries.map((row) => row.id)],
    );
    return [
      ...lettered(
        'delivery',
        deliveries.map((row) => row.id),
      ),
      ...lettered(
        'event',
        deliveries.map((row) => row.eventId),
      ),
      ...lettered(
        'attempt',
        attempts.map((row) => row.id),
      ),
    ];
  },
  async prepare(client, template, ids) {
    const deliveryIds = ids.filter((id) => id.role.startsWith('delivery_')).map((id) => id.id);
    const attemptIds = ids.filter((id) => id.role.startsWith('attempt_')).map((id) => id.id);
    const { rows } = await client.query(
      'SELECT coalesce(max(feed_position + 0), 0)::text AS top FROM webhook_deliveries',
    );
    return { deliveryIds, attemptIds, feedBase: BigInt(rows[0].top) + BigInt(FEED_HEADROOM) };
  },
  async plans(template, tag, prepared) {
    const { deliveryIds, attemptIds, feedBase } = prepared;
    const ranks = deliveryIds.map((id, rank) => `(${literal(id)}::uuid, ${rank})`).join(', ');
    const plans = [
      {
        table: 'webhook_deliveries',
        where: `tpl.delivery_id IN (${inList(deliveryIds)})`,
        expectedRows: deliveryIds.length,
        requiredColumns: ['delivery_id', 'event_id', 'partner_id', 'body', 'status', 'feed_position'],
        joins: `JOIN (VALUES ${ranks}) AS feed(delivery_id, rank) ON feed.delivery_id = tpl.delivery_id`,
        overrides: { feed_position: `${feedBase}::bigint + (s.i - 1) * ${deliveryIds.length} + feed.rank` },
        orderBy: 's.i, tpl.delivery_id',
      },
    ];
    if (attemptIds.length > 0)
      plans.push({
        table: 'webhook_delivery_attempts',
        where: `tpl.id IN (${inList(attemptIds)})`,
        expectedRows: attemptIds.length,
        requiredColumns: ['id', 'delivery_id', 'delivery_created_at'],
        orderBy: 's.i, tpl.id',
      });
    return plans;
  },
};
