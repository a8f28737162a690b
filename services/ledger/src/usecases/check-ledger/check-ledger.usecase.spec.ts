// Proves the reconciliation report reads one read-only snapshot whose statements may outlast the
// pool's request timeout (each check reads every posting or hold), and that a problem row fails its check.
import type { DataSource, EntityManager } from '@platform/persistence';
import { CheckLedgerUseCase } from './check-ledger.usecase';

function recordingDataSource(problemIn: string | null) {
  const statements: string[] = [];
  const isolations: string[] = [];
  const manager = {
    query: async (sql: string) => {
      statements.push(sql);
      return problemIn !== null && sql.includes(problemIn) ? [{ problem: 'found' }] : [];
    },
  } as unknown as EntityManager;
  const dataSource = {
    transaction: async (isolation: string, work: (m: EntityManager) => Promise<unknown>) => {
      isolations.push(isolation);
      return work(manager);
    },
  } as unknown as DataSource;
  return { dataSource, statements, isolations };
}

describe('CheckLedgerUseCase', () => {
  it('runs every check in one read-only snapshot with a statement timeout set for the report', async () => {
    const { dataSource, statements, isolations } = recordingDataSource(null);
    const report = await new CheckLedgerUseCase(dataSource, 60_000).execute();
    expect(report.ok).toBe(true);
    expect(isolations).toEqual(['REPEATABLE READ']);
    expect(statements[0]).toBe('SET TRANSACTION READ ONLY');
    const timeout = /^SET LOCAL statement_timeout = (\d+)$/.exec(statements[1] ?? '');
    expect(Number(timeout?.[1])).toBeGreaterThanOrEqual(10 * 60_000);
    expect(statements.slice(2).every((sql) => sql.startsWith('SELECT'))).toBe(true);
  });

  it('fails the report when a check returns a problem', async () => {
    const { dataSource } = recordingDataSource('FROM postings GROUP BY entry_id');
    const report = await new CheckLedgerUseCase(dataSource, 60_000).execute();
    expect(report.ok).toBe(false);
    expect(report.checks.filter((check) => !check.ok).map((check) => check.name)).toEqual(['entries_balanced']);
  });
});
