// Proves the retention sweep's shape without a database: one statement deletes a
// bounded batch in time order, skipping rows another replica holds, only rows
// matching the rule's condition, dependents in the same statement; the cutoff is
// the window before now; a sweep deletes batch after batch until one comes back
// short; rules and batch sizes out of bounds are refused before anything runs.
// (The statements against PostgreSQL are proven by each service's retention spec.)
import type { Logger } from '@platform/logger';
import type { DataSource } from 'typeorm';
import {
  overdueSql,
  pruneBatch,
  pruneSql,
  RETENTION_BATCH_SIZE_MAX,
  RetentionRule,
  retentionCutoff,
  retentionSweepers,
} from './retention';

const logger = { info() {}, warn() {}, error() {}, child: () => logger } as unknown as Logger;
const HOUR_MS = 60 * 60_000;

const outbox: RetentionRule = {
  table: 'outbox',
  idColumn: 'id',
  timeColumn: 'published_at',
  where: 'published_at IS NOT NULL',
  windowMs: HOUR_MS,
};

/** A data source whose delete statements answer `pruned` in turn (then 0), recording each call. */
function answering(pruned: number[]) {
  const calls: Array<{ sql: string; parameters: unknown[] }> = [];
  const dataSource = {
    query: async (sql: string, parameters: unknown[]) => {
      calls.push({ sql, parameters });
      return [{ pruned: pruned.shift() ?? 0 }];
    },
  } as unknown as DataSource;
  return { dataSource, calls };
}

describe('pruneSql', () => {
  it('deletes a bounded batch past the cutoff, in time order, under the rule condition, skipping locked rows', () => {
    const sql = pruneSql(outbox).replace(/\s+/g, ' ');
    expect(sql).toContain(
      'SELECT id, published_at FROM outbox WHERE published_at < $1 AND (published_at IS NOT NULL) ORDER BY published_at LIMIT $2 FOR UPDATE SKIP LOCKED',
    );
    expect(sql).toContain('DELETE FROM outbox t USING doomed WHERE t.id = doomed.id RETURNING 1');
    expect(sql).toContain('SELECT count(*)::int AS pruned FROM gone');
  });

  it('deletes the rows that reference a pruned row in the same statement, before it', () => {
    const sql = pruneSql({
      ...outbox,
      table: 'deliveries',
      idColumn: 'delivery_id',
      dependents: [{ table: 'delivery_attempts', column: 'delivery_id' }],
    });
    const dependent = sql.indexOf(
      'DELETE FROM delivery_attempts d USING doomed WHERE d.delivery_id = doomed.delivery_id',
    );
    expect(dependent).toBeGreaterThan(0);
    expect(dependent).toBeLessThan(sql.indexOf('DELETE FROM deliveries t'));
  });

  it('refuses names that are not identifiers and windows that are not positive', () => {
    expect(() => pruneSql({ ...outbox, table: 'outbox; DROP TABLE x' })).toThrow('not an identifier');
    expect(() => pruneSql({ ...outbox, dependents: [{ table: 'a', column: 'b c' }] })).toThrow('not an identifier');
    expect(() => overdueSql({ ...outbox, timeColumn: 'Published' })).toThrow('not an identifier');
    expect(() => pruneSql({ ...outbox, windowMs: 0 })).toThrow('windowMs');
  });
});

describe('pruneBatch', () => {
  it('passes the window before now as the cutoff and the batch size as the bound', async () => {
    const { dataSource, calls } = answering([7]);
    const nowMs = Date.parse('2026-01-02T00:00:00Z');
    expect(await pruneBatch(dataSource, outbox, 50, nowMs)).toBe(7);
    expect(calls[0]?.parameters).toEqual([new Date('2026-01-01T23:00:00Z'), 50]);
    expect(retentionCutoff(outbox, nowMs).toISOString()).toBe('2026-01-01T23:00:00.000Z');
  });
});

describe('retentionSweepers', () => {
  it('runs one sweeper per rule that deletes batches until one comes back short', async () => {
    const { dataSource, calls } = answering([10, 10, 3]);
    const [sweeper, ...others] = retentionSweepers(dataSource, [outbox], logger, { intervalMs: 1_000, batchSize: 10 });
    expect(others).toHaveLength(0);
    await sweeper?.runOnce();
    expect(calls).toHaveLength(3);
    expect(calls.every((call) => call.parameters[1] === 10)).toBe(true);
  });

  it('refuses a batch size out of bounds', () => {
    const { dataSource } = answering([]);
    for (const batchSize of [0, RETENTION_BATCH_SIZE_MAX + 1, 1.5])
      expect(() => retentionSweepers(dataSource, [outbox], logger, { intervalMs: 1_000, batchSize })).toThrow(
        'batchSize',
      );
  });
});
