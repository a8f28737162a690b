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
  createMissingWeeks,
  dropWeek,
  isNoPartitionForRow,
  maintainPartitions,
  PartitionRule,
  WEEK_MS,
  weekPartitionName,
  weekStartMs,
  WEEKS_CREATED_ON_DEMAND_MAX,
} from './partitions';
import {
  BATCH_LAG_BEHIND_DROPS_MS,
  partitionRuleOf,
  RetentionRule,
  retentionCutoff,
  retentionSweepers,
} from './retention';

const MONDAY = Date.UTC(2026, 10, 23);

/**
 * A database that records every statement, whitespace folded (a transaction's BEGIN, COMMIT and
 * ROLLBACK too), and answers each, on the pool or on a runner alike, with `answer`.
 */
function recordingDatabase(answer: (sql: string, parameters: unknown[]) => unknown[]) {
  const statements: string[] = [];
  const query = async (sql: string, parameters: unknown[] = []) => {
    const text = sql.replace(/\s+/g, ' ').trim();
    statements.push(text);
    return answer(text, parameters);
  };
  const runner = {
    startTransaction: async () => void statements.push('BEGIN'),
    commitTransaction: async () => void statements.push('COMMIT'),
    rollbackTransaction: async () => void statements.push('ROLLBACK'),
    release: async () => undefined,
    isTransactionActive: false,
    query,
  };
  return { dataSource: { query, createQueryRunner: () => runner } as unknown as DataSource, statements };
}

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
    // The newest week there is the one after this Monday's; an older one was dropped.
    const { dataSource, statements } = recordingDatabase(() => [
      { name: 'webhook_deliveries_20261130' },
      { name: 'webhook_deliveries_default' },
    ]);
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
      const detached = new Set<string>();
      const named = (sql: string) => /to_regclass\('(\w+)'\)/.exec(sql)?.[1] ?? '';
      return recordingDatabase((sql) => {
        if (sql.includes("= 'DEFAULT'")) return [{ found: options.defaults }];
        if (sql.includes('pg_try_advisory_lock')) return [{ locked: true }];
        if (sql.includes('AS held')) return [{ held: detached.size > 0 && options.heldAfterDetach }];
        if (sql.includes('inhdetachpending')) return [{ attached: !detached.has(named(sql)), pending: false }];
        if (sql.includes('relispartition AS attached')) return [{ attached: !detached.has(named(sql)) }];
        const detach = /DETACH PARTITION (\w+)/.exec(sql);
        if (detach) detached.add(detach[1]!);
        return [];
      });
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

  describe('a week missing when a row needs it', () => {
    const tables = ['webhook_deliveries', 'webhook_delivery_attempts'];
    /** Deliveries have `deliveryWeeks`, attempts `attemptWeeks`; the range below ends at `belowEndMs`. */
    function database(deliveryWeeks: number[], attemptWeeks: number[], belowEndMs?: number) {
      return recordingDatabase((sql, parameters) => {
        const table = parameters[0] as string;
        if (sql.includes('MINVALUE'))
          return belowEndMs === undefined ? [] : [{ upper: new Date(belowEndMs) }, { upper: null }];
        if (!sql.includes('pg_inherits')) return [];
        const weeks = table === 'webhook_deliveries' ? deliveryWeeks : attemptWeeks;
        return weeks.map((start) => ({ name: weekPartitionName(table, start) }));
      });
    }

    it('creates only the weeks a table lacks, not those the range below covers, each under its advisory lock', async () => {
      const firstWeek = MONDAY - 4 * WEEK_MS;
      const below = firstWeek - WEEK_MS;
      const attemptsOnly = MONDAY;
      const { dataSource, statements } = database([firstWeek, attemptsOnly], [firstWeek]);
      const asked = [below, firstWeek, attemptsOnly, MONDAY + WEEK_MS, MONDAY + WEEK_MS];
      const withRange = database([firstWeek, attemptsOnly], [firstWeek], firstWeek);
      expect(await createMissingWeeks(withRange.dataSource, { tables }, asked)).toEqual([
        attemptsOnly,
        MONDAY + WEEK_MS,
      ]);
      // Without the range below (dropped), the week below the first is missing too.
      expect(await createMissingWeeks(dataSource, { tables }, asked)).toEqual([below, attemptsOnly, MONDAY + WEEK_MS]);
      const transaction = withRange.statements.slice(
        withRange.statements.indexOf('BEGIN'),
        9 + withRange.statements.indexOf('BEGIN'),
      );
      expect(transaction).toEqual([
        'BEGIN',
        "SET LOCAL lock_timeout = '2s'",
        // Its turn on the week waited for longer than a lock on a table: another replica creating it.
        "SET LOCAL lock_timeout = '10s'",
        "SELECT pg_advisory_xact_lock(hashtext('partition webhook_deliveries_20261123'))",
        "SET LOCAL lock_timeout = '2s'",
        'CREATE TABLE IF NOT EXISTS webhook_deliveries_20261123 (LIKE webhook_deliveries INCLUDING ALL EXCLUDING INDEXES)',
        expect.stringContaining(
          "ALTER TABLE webhook_deliveries ATTACH PARTITION webhook_deliveries_20261123 FOR VALUES FROM ('2026-11-23T00:00:00.000Z') TO ('2026-11-30T00:00:00.000Z')",
        ),
        'CREATE TABLE IF NOT EXISTS webhook_delivery_attempts_20261123 (LIKE webhook_delivery_attempts INCLUDING ALL EXCLUDING INDEXES)',
        expect.stringContaining(
          'ALTER TABLE webhook_delivery_attempts ATTACH PARTITION webhook_delivery_attempts_20261123',
        ),
      ]);
      expect(statements.some((sql) => sql.includes('PARTITION OF'))).toBe(false);
    });

    it('refuses more weeks than a row may be filed in, and an instant that starts no week', async () => {
      const { dataSource, statements } = database([], []);
      const weeks = Array.from({ length: WEEKS_CREATED_ON_DEMAND_MAX + 1 }, (_, index) => MONDAY + index * WEEK_MS);
      await expect(createMissingWeeks(dataSource, { tables }, weeks)).rejects.toThrow(/at most 8/);
      await expect(createMissingWeeks(dataSource, { tables }, [MONDAY + 3_600_000])).rejects.toThrow(/not the start/);
      expect(statements).toEqual([]);
    });

    it('recognises the refusal of a row no partition takes', () => {
      const refusal = Object.assign(new Error('no partition of relation "webhook_deliveries" found for row'), {
        code: '23514',
      });
      expect(isNoPartitionForRow(refusal)).toBe(true);
      expect(isNoPartitionForRow({ driverError: { code: '23514' }, message: refusal.message })).toBe(true);
      expect(
        isNoPartitionForRow(Object.assign(new Error('new row violates check constraint'), { code: '23514' })),
      ).toBe(false);
      expect(isNoPartitionForRow(new Error('no partition of relation'))).toBe(false);
    });
  });

  describe('the range below the first week', () => {
    const rule: PartitionRule = {
      tables: ['webhook_deliveries', 'webhook_delivery_attempts'],
      aheadCount: 1,
      windowMs: 60 * 86_400_000,
      holds: ["status = 'pending'"],
      below: ['deliveries', 'delivery_attempts'],
    };
    const logger = { info: () => undefined } as unknown as Logger;
    const firstWeek = Date.UTC(2026, 8, 7);

    /** The range ends at the first week; `held`: whether a row holds it, and from when. */
    function database(held: 'never' | 'always' | 'once detached') {
      const detached = new Set<string>();
      const weeks = [firstWeek, firstWeek + WEEK_MS];
      const { dataSource, statements } = recordingDatabase((text, parameters) => {
        const named = (parameters[0] as string | undefined) ?? /to_regclass\('(\w+)'\)|'(\w+)'::regclass/.exec(text);
        const name = typeof named === 'string' ? named : (named?.[1] ?? named?.[2] ?? '');
        if (text.includes("= 'DEFAULT'")) return [{ found: false }];
        if (text.includes('pg_try_advisory_lock')) return [{ locked: true }];
        if (text.includes('AS held'))
          return [{ held: held === 'always' || (held === 'once detached' && detached.size > 0) }];
        if (text.includes('regexp_match')) return name === 'webhook_deliveries' ? [{ upper: new Date(firstWeek) }] : [];
        if (text.includes('inhdetachpending')) return [{ attached: !detached.has(name), pending: false }];
        if (text.includes('relispartition AS attached')) return [{ attached: !detached.has(name) }];
        if (text.includes('relname ~')) return [];
        if (text.includes('pg_inherits')) return weeks.map((start) => ({ name: weekPartitionName(name, start) }));
        const detach = /DETACH PARTITION (\w+)/.exec(text);
        if (detach) detached.add(detach[1]!);
        return [];
      });
      const ddl = () =>
        statements.filter(
          (sql) =>
            (sql.startsWith('ALTER TABLE') || sql.startsWith('DROP')) && /\b(deliveries|delivery_attempts)\b/.test(sql),
        );
      return { dataSource, ddl };
    }
    /** When the range's end (the first week) is just past the window. */
    const pastWindowMs = firstWeek + rule.windowMs + 1;

    it('is dropped as a week is once its end is past the window: detached concurrently, attempts dropped first', async () => {
      const { dataSource, ddl } = database('never');
      expect(await maintainPartitions(dataSource, rule, logger, pastWindowMs)).toBeGreaterThanOrEqual(1);
      expect(ddl()).toEqual([
        'ALTER TABLE webhook_deliveries DETACH PARTITION deliveries CONCURRENTLY',
        'ALTER TABLE webhook_delivery_attempts DETACH PARTITION delivery_attempts CONCURRENTLY',
        'DROP TABLE IF EXISTS delivery_attempts',
        'DROP TABLE IF EXISTS deliveries',
      ]);
    });

    it('is left alone while its end is inside the window, or while a row in it is unfinished', async () => {
      const inside = database('never');
      await maintainPartitions(inside.dataSource, rule, logger, pastWindowMs - 2);
      expect(inside.ddl()).toEqual([]);
      const held = database('always');
      await maintainPartitions(held.dataSource, rule, logger, pastWindowMs);
      expect(held.ddl()).toEqual([]);
    });

    it('is attached back, ending where the weeks begin, when a row became unfinished before the detach', async () => {
      const { dataSource, ddl } = database('once detached');
      await maintainPartitions(dataSource, rule, logger, pastWindowMs);
      expect(ddl()).toEqual([
        'ALTER TABLE webhook_deliveries DETACH PARTITION deliveries CONCURRENTLY',
        "ALTER TABLE webhook_deliveries ATTACH PARTITION deliveries FOR VALUES FROM (MINVALUE) TO ('2026-09-07T00:00:00.000Z')",
      ]);
    });
  });
});
