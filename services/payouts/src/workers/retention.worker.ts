/**
 * Payouts's retention (docs/retention.md): what only serves a window is
 * deleted after it, in small batches, by every replica (@platform/persistence
 * startRetention). Transfers, sends, batches, pushes, payout instructions and
 * confirmations are financial records and are kept.
 *
 * - outbox: a published event is read by nothing (the relay reads unpublished
 *   rows only); it stays OUTBOX_RETENTION_MS after publication for inspection.
 *   An unpublished row is never pruned.
 */
import { outboxRetentionRule } from '@platform/events';
import type { RetentionRule } from '@platform/persistence';

export function payoutsRetentionRules(windows: { outboxRetentionMs: number }): RetentionRule[] {
  return [outboxRetentionRule(windows.outboxRetentionMs)];
}
