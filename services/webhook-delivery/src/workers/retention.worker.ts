/**
 * Webhook-delivery's retention (docs/retention.md): a delivery is the events
 * feed's record of an event, so it is kept while the feed serves it
 * (EVENT_FEED_RETENTION_DAYS) and some time beyond, so a cursor just past the
 * window still answers EVENT_CURSOR_EXPIRED rather than EVENT_CURSOR_UNKNOWN
 * (DELIVERY_RETENTION_DAYS, validated longer). Only finished deliveries with a
 * feed position are removed: delivered, dead, or held without an endpoint (a
 * held delivery is reopened only within its first 72 hours); one still pending
 * or being delivered is never removed, whatever its age. Endpoints and audit
 * records are kept.
 *
 * Deliveries and their attempts are partitioned by week (the weekly-partitions
 * migration), so most rows go by dropping a week:
 * - the `webhook_deliveries` rule is partitioned by week: its maintenance keeps
 *   DELIVERY_PARTITIONS_AHEAD_WEEKS weeks ready ahead and drops a week of deliveries
 *   with its attempts once the whole week is past the window, unless it still holds
 *   an unfinished delivery: detached CONCURRENTLY (the parents have no DEFAULT
 *   partition), so inserts and claims go on; its batches delete the finished rows of
 *   such a kept week, a week and a day later than the window, so that they never race
 *   a drop that is about to happen;
 * - the `deliveries` rule deletes, by batch at the window, the rows recorded before
 *   the partitioning (`deliveries` and `delivery_attempts`, the range below the first week),
 *   until the maintenance drops that range as it drops a week: once its end (the first
 *   week's start) is past the window and no delivery in it is unfinished. Then the database
 *   holds only weeks, and the rule finds no table.
 *
 * Runs in every replica on the shared work loop (@platform/persistence startRetention).
 */
import type { RetentionRule } from '@platform/persistence';

const DAY_MS = 24 * 60 * 60_000;

/** A delivery no worker and no reopening will touch again. */
export const FINISHED_DELIVERY = `status IN ('delivered', 'dead', 'no_endpoint') AND feed_position IS NOT NULL`;

/** What keeps a week of deliveries from being dropped: one unfinished delivery, each probe along a partial index. */
export const UNFINISHED_DELIVERY_PROBES = [`status = 'pending'`, `status = 'delivering'`, 'feed_position IS NULL'];

export interface DeliveryWindows {
  deliveryRetentionDays: number;
  partitionsAheadWeeks: number;
}

export function webhookDeliveryRetentionRules(windows: DeliveryWindows): RetentionRule[] {
  const windowMs = windows.deliveryRetentionDays * DAY_MS;
  return [
    {
      // The range below the first week, under the names the tables had before (the previous release prunes them so too).
      table: 'deliveries',
      idColumn: 'delivery_id',
      timeColumn: 'created_at',
      where: FINISHED_DELIVERY,
      windowMs,
      dependents: [
        { table: 'delivery_attempts', column: 'delivery_id' },
        { table: 'partner_retries', column: 'delivery_id' },
      ],
      untilDropped: true,
    },
    {
      // Weeks dropped whole; batches only for the finished rows of a week kept for an unfinished delivery.
      table: 'webhook_deliveries',
      idColumn: 'delivery_id',
      timeColumn: 'created_at',
      where: FINISHED_DELIVERY,
      windowMs,
      dependents: [
        { table: 'webhook_delivery_attempts', column: 'delivery_id' },
        { table: 'partner_retries', column: 'delivery_id' },
      ],
      partitionedByWeek: {
        alongside: ['webhook_delivery_attempts'],
        aheadCount: windows.partitionsAheadWeeks,
        holds: UNFINISHED_DELIVERY_PROBES,
        below: ['deliveries', 'delivery_attempts'],
      },
    },
  ];
}
