/**
 * Webhook-delivery's retention (docs/retention.md): a delivery is the events
 * feed's record of an event, so it is kept while the feed serves it
 * (EVENT_FEED_RETENTION_DAYS) and some time beyond, so a cursor just past the
 * window still answers EVENT_CURSOR_EXPIRED rather than EVENT_CURSOR_UNKNOWN
 * (DELIVERY_RETENTION_DAYS, validated longer). Only finished deliveries with a
 * feed position are pruned: delivered, dead, or held without an endpoint (a
 * held delivery is reopened only within its first 72 hours); one still pending
 * or being delivered is never pruned, whatever its age. Its attempts and the
 * partner retries that name it go in the same statement. Endpoints and audit
 * records are kept.
 *
 * Runs in every replica on the shared work loop (@platform/persistence startRetention).
 */
import type { RetentionRule } from '@platform/persistence';

const DAY_MS = 24 * 60 * 60_000;

/** A delivery no worker and no reopening will touch again. */
export const FINISHED_DELIVERY = `status IN ('delivered', 'dead', 'no_endpoint') AND feed_position IS NOT NULL`;

export function webhookDeliveryRetentionRules(windows: { deliveryRetentionDays: number }): RetentionRule[] {
  return [
    {
      table: 'deliveries',
      idColumn: 'delivery_id',
      timeColumn: 'created_at',
      where: FINISHED_DELIVERY,
      windowMs: windows.deliveryRetentionDays * DAY_MS,
      dependents: [
        { table: 'delivery_attempts', column: 'delivery_id' },
        { table: 'partner_retries', column: 'delivery_id' },
      ],
    },
  ];
}
