// Proves the weekly partition arithmetic without a database: weeks start on Monday
// 00:00 UTC whatever the instant (Sunday night included), partitions are named after
// their Monday, and a maintenance pass creates only the weeks after the newest one
// there, up to the weeks ahead, never one behind it; a retention rule partitioned by
// week gets its maintenance beside its batches, which reach a week and a day behind
// the window. (Creating and dropping against PostgreSQL, a week held by an unfinished
// delivery included, is webhook-delivery's.)
import type { Logger } from '@platform/logger';
import type { DataSource } from 'typeorm';
import {
  BATCH_LAG_BEHIND_DROPS_MS,
  maintainPartitions,
  PartitionRule,
  partitionRuleOf,
  RetentionRule,
  retentionCutoff,
  retentionSweepers,
  WEEK_MS,
  weekPartitionName,
  weekStartMs,
} from './retention';

const MONDAY = Date.UTC(2026, 10, 23);

describe('weekly partitions', () => {
  it('starts a week on Monday 00:00 UTC', () => {
    expect(weekStartMs(Date.UTC(2026, 10, 23, 0, 0, 0))).toBe(MONDAY);
    expect(weekStartMs(Date.UTC(2026, 10, 26, 19, 30))).toBe(MONDAY);
    expect(weekStartMs(Date.UTC(2026, 10, 29, 23, 59, 59, 999))).toBe(MONDAY);
    expect(weekStartMs(Date.UTC(2026, 10, 30))).toBe(MONDAY + WEEK_MS);
  });

  it('names a partition after its Monday', () => {
    expect(weekPartitionName('webhook_deliveries', MONDAY)).toBe('webhook_deliveries_20261123');
  });

  it('creates the weeks after the newest up to the weeks ahead, and none behind it', async () => {
    const statements: string[] = [];
    const runner = {
      startTransaction: async () => undefined,
      commitTransaction: async () => undefined,
      rollbackTransaction: async () => undefined,
      release: async () => undefined,
      isTransactionActive: false,
      query: async (sql: string) => statements.push(sql),
    };
    const dataSource = {
      // The newest week there is the one after this Monday's; an older one was dropped.
      query: async () => [{ name: 'webhook_deliveries_20261130' }, { name: 'webhook_deliveries_default' }],
      createQueryRunner: () => runner,
    } as unknown as DataSource;
    const rule: PartitionRule = {
      tables: ['webhook_deliveries', 'webhook_delivery_attempts'],
      aheadCount: 3,
      windowMs: 60 * 86_400_000,
      holds: [],
    };
    const logger = { info: () => undefined } as unknown as Logger;
    expect(await maintainPartitions(dataSource, rule, logger, Date.UTC(2026, 10, 26))).toBe(2);
    const created = statements.filter((sql) => sql.startsWith('CREATE TABLE')).map((sql) => sql.split(' ')[5]);
    expect(created).toEqual([
      'webhook_deliveries_20261207',
      'webhook_delivery_attempts_20261207',
      'webhook_deliveries_20261214',
      'webhook_delivery_attempts_20261214',
    ]);
    // Each as a plain table, then attached (SHARE UPDATE EXCLUSIVE on the parent), never PARTITION OF (ACCESS EXCLUSIVE).
    expect(statements.some((sql) => sql.includes('PARTITION OF'))).toBe(false);
    const attached = statements.filter((sql) => sql.includes('ATTACH PARTITION'));
    expect(attached).toHaveLength(4);
    expect(attached[0]).toContain(
      "ALTER TABLE webhook_deliveries ATTACH PARTITION webhook_deliveries_20261207 FOR VALUES FROM ('2026-12-07T00:00:00.000Z') TO ('2026-12-14T00:00:00.000Z')",
    );
  });

  describe('a retention rule partitioned by week', () => {
    const deliveries: RetentionRule = {
      table: 'webhook_deliveries',
      idColumn: 'delivery_id',
      timeColumn: 'created_at',
      where: "status = 'delivered'",
      windowMs: 60 * 86_400_000,
      partitionedByWeek: { alongside: ['webhook_delivery_attempts'], aheadCount: 4, holds: ["status = 'pending'"] },
    };

    it('names its table first, then those partitioned alongside, with its window', () => {
      expect(partitionRuleOf(deliveries, deliveries.partitionedByWeek!)).toEqual({
        tables: ['webhook_deliveries', 'webhook_delivery_attempts'],
        aheadCount: 4,
        windowMs: deliveries.windowMs,
        holds: ["status = 'pending'"],
      });
    });

    it('gets a maintenance sweeper beside its batches, whose cutoff is a week and a day behind the window', () => {
      const dataSource = { query: async () => [] } as unknown as DataSource;
      const logger = { info: () => undefined, child: () => logger } as unknown as Logger;
      const sweepers = retentionSweepers(dataSource, [deliveries], logger, { intervalMs: 1_000, batchSize: 10 });
      // Its description, which its logs and the loop name it by.
      expect(sweepers.map((sweeper) => (sweeper as unknown as { what: string }).what)).toEqual([
        'partitions of webhook_deliveries, webhook_delivery_attempts',
        'retention of webhook_deliveries',
      ]);
      const nowMs = Date.UTC(2026, 10, 26);
      expect(retentionCutoff(deliveries, nowMs).getTime()).toBe(
        nowMs - deliveries.windowMs - BATCH_LAG_BEHIND_DROPS_MS,
      );
      expect(BATCH_LAG_BEHIND_DROPS_MS).toBe(WEEK_MS + 86_400_000);
      const { partitionedByWeek: _, ...unpartitioned } = deliveries;
      expect(retentionCutoff(unpartitioned, nowMs).getTime()).toBe(nowMs - deliveries.windowMs);
    });
  });
});
