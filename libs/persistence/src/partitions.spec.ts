// Proves the weekly partition arithmetic without a database: weeks start on Monday
// 00:00 UTC whatever the instant (Sunday night included), partitions are named after
// their Monday, and a maintenance pass creates only the weeks after the newest one
// there, up to the weeks ahead, never one behind it; a retention rule partitioned by
// week gets its maintenance beside its batches, which reach a week and a day behind
// the window; a week is dropped by a concurrent detach outside any transaction (deliveries first,
// attached back if held once detached), or under ACCESS EXCLUSIVE only beside a DEFAULT partition,
// where PostgreSQL refuses the concurrent one. (Creating and dropping against PostgreSQL, a week held by an unfinished
// delivery included, is webhook-delivery's.)
import type { Logger } from '@platform/logger';
import type { DataSource } from 'typeorm';
import {
  BATCH_LAG_BEHIND_DROPS_MS,
  dropWeek,
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

  describe('dropping a week', () => {
    const rule: PartitionRule = {
      tables: ['webhook_deliveries', 'webhook_delivery_attempts'],
      aheadCount: 3,
      windowMs: 60 * 86_400_000,
      holds: ["status = 'pending'"],
    };

    /** A database whose answers depend on the statement: `defaults` DEFAULT partitions, the week held or not. */
    function database(options: { defaults: boolean; heldAfterDetach: boolean }) {
      const statements: string[] = [];
      let detached = false;
      const answer = async (sql: string) => {
        statements.push(sql.replace(/\s+/g, ' ').trim());
        if (sql.includes("= 'DEFAULT'")) return [{ found: options.defaults }];
        if (sql.includes('pg_try_advisory_lock')) return [{ locked: true }];
        if (sql.includes('AS held')) return [{ held: detached && options.heldAfterDetach }];
        if (sql.includes('inhdetachpending')) return [{ attached: true, pending: false }];
        if (sql.includes('relispartition AS attached')) return [{ attached: !detached }];
        if (sql.includes('DETACH PARTITION webhook_deliveries_')) detached = true;
        return [];
      };
      const runner = {
        startTransaction: async () => statements.push('BEGIN'),
        commitTransaction: async () => statements.push('COMMIT'),
        rollbackTransaction: async () => statements.push('ROLLBACK'),
        release: async () => undefined,
        isTransactionActive: false,
        query: answer,
      };
      const dataSource = { query: answer, createQueryRunner: () => runner } as unknown as DataSource;
      return { dataSource, statements };
    }
    const monday = Date.UTC(2026, 8, 7);

    it('without a DEFAULT partition: detaches concurrently outside a transaction, deliveries first, then drops', async () => {
      const { dataSource, statements } = database({ defaults: false, heldAfterDetach: false });
      expect(await dropWeek(dataSource, rule, monday)).toBe(true);
      const ddl = statements.filter(
        (sql) => sql.startsWith('ALTER TABLE') || sql.startsWith('DROP') || sql === 'BEGIN',
      );
      expect(ddl).toEqual([
        'ALTER TABLE webhook_deliveries DETACH PARTITION webhook_deliveries_20260907 CONCURRENTLY',
        'ALTER TABLE webhook_delivery_attempts DETACH PARTITION webhook_delivery_attempts_20260907 CONCURRENTLY',
        'DROP TABLE IF EXISTS webhook_delivery_attempts_20260907',
        'DROP TABLE IF EXISTS webhook_deliveries_20260907',
      ]);
      expect(statements.some((sql) => sql.startsWith('LOCK TABLE'))).toBe(false);
      expect(statements).toContain("SET lock_timeout = '2s'");
      expect(statements.at(-2)).toBe("SELECT pg_advisory_unlock(hashtext('partition webhook_deliveries_20260907'))");
      expect(statements.at(-1)).toBe('RESET lock_timeout');
    });

    it('attaches the deliveries back, and keeps the week, when one became unfinished before the detach', async () => {
      const { dataSource, statements } = database({ defaults: false, heldAfterDetach: true });
      expect(await dropWeek(dataSource, rule, monday)).toBe(false);
      const ddl = statements.filter((sql) => sql.startsWith('ALTER TABLE') || sql.startsWith('DROP'));
      expect(ddl).toEqual([
        'ALTER TABLE webhook_deliveries DETACH PARTITION webhook_deliveries_20260907 CONCURRENTLY',
        "ALTER TABLE webhook_deliveries ATTACH PARTITION webhook_deliveries_20260907 FOR VALUES FROM ('2026-09-07T00:00:00.000Z') TO ('2026-09-14T00:00:00.000Z')",
      ]);
    });

    it('beside a DEFAULT partition: one transaction under ACCESS EXCLUSIVE (no concurrent detach there)', async () => {
      const { dataSource, statements } = database({ defaults: true, heldAfterDetach: false });
      expect(await dropWeek(dataSource, rule, monday)).toBe(true);
      expect(statements.filter((sql) => sql.startsWith('LOCK TABLE') || sql.startsWith('DROP'))).toEqual([
        'LOCK TABLE webhook_deliveries, webhook_delivery_attempts IN ACCESS EXCLUSIVE MODE',
        'DROP TABLE webhook_delivery_attempts_20260907',
        'DROP TABLE webhook_deliveries_20260907',
      ]);
      expect(statements.some((sql) => sql.includes('CONCURRENTLY'))).toBe(false);
    });
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
