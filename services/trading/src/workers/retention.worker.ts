/**
 * Trading's retention (docs/retention.md): what only serves a window is
 * deleted after it, in small batches, by every replica (@platform/persistence
 * startRetention). Orders, cap usages and partner settings are records and are
 * kept.
 *
 * - outbox: a published event is read by nothing (the relay reads unpublished
 *   rows only); it stays OUTBOX_RETENTION_MS after publication for inspection.
 *   An unpublished row is never pruned.
 * - quotes: a quote never consumed is dead once it expires; it stays
 *   QUOTE_RETENTION_MS after its expiry. A consumed quote is the record of
 *   what its order was offered and is kept with the order.
 */
import { outboxRetentionRule } from '@platform/events';
import type { RetentionRule } from '@platform/persistence';

export interface TradingRetentionWindows {
  outboxRetentionMs: number;
  quoteRetentionMs: number;
}

export function tradingRetentionRules(windows: TradingRetentionWindows): RetentionRule[] {
  return [
    outboxRetentionRule(windows.outboxRetentionMs),
    {
      table: 'quotes',
      idColumn: 'quote_id',
      timeColumn: 'expires_at',
      where: 'consumed_at IS NULL',
      windowMs: windows.quoteRetentionMs,
    },
  ];
}
