// Proves the range replay's bounds: a valid range reaches the repository with its
// dates and default limit; a bad partner id, malformed or reversed dates, a span
// over 31 days and an out-of-range limit are refused naming each field. A call
// that re-opened deliveries is audited on its transaction (a fake here).
import { AppError } from '@platform/errors';
import { createLogger, runWithContext } from '@platform/logger';
import { Registry } from '@platform/metrics';
import type { DataSource } from '@platform/persistence';
import { DeliveryMetrics } from '../../metrics/delivery-metrics';
import type { DeliveriesRepository, RangeReplay } from '../../persistence/deliveries.repository';
import { ReplayDeliveriesUseCase } from './replay-deliveries.usecase';

const partnerId = '6f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11';

function build() {
  const calls: RangeReplay[] = [];
  const deliveries = {
    replayRange: async (range: RangeReplay) => {
      calls.push(range);
      return { replayed: 2, remaining: 0 };
    },
  } as unknown as DeliveriesRepository;
  const statements: Array<{ sql: string; parameters: unknown[] }> = [];
  const manager = { query: async (sql: string, parameters: unknown[]) => statements.push({ sql, parameters }) };
  const dataSource = {
    transaction: async (work: (m: unknown) => Promise<unknown>) => work(manager),
  } as unknown as DataSource;
  const useCase = new ReplayDeliveriesUseCase(
    dataSource,
    deliveries,
    new DeliveryMetrics(new Registry()),
    createLogger('spec', 'error'),
  );
  type Command = Parameters<ReplayDeliveriesUseCase['execute']>[0];
  return {
    useCase: { execute: (command: Command) => runWithContext({ caller: 'ops' }, () => useCase.execute(command)) },
    calls,
    statements,
  };
}

async function refusedFields(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return (error as AppError).message;
  }
  throw new Error('expected a refusal');
}

describe('ReplayDeliveriesUseCase', () => {
  const base = {
    partnerId,
    since: '2026-01-01T00:00:00.000Z',
    until: '2026-01-02T00:00:00Z',
    deadOnly: true,
    limit: 0,
  };

  it('replays a valid range with the default limit, and audits it', async () => {
    const { useCase, calls, statements } = build();
    expect(await useCase.execute(base)).toEqual({ replayed: 2, remaining: 0 });
    expect(calls[0]).toEqual({
      partnerId,
      since: new Date(base.since),
      until: new Date(base.until),
      deadOnly: true,
      limit: 500,
    });
    expect(statements).toHaveLength(1);
    expect(statements[0].parameters.slice(0, 3)).toEqual(['webhook_deliveries.replayed', partnerId, 'ops']);
    expect(JSON.parse(statements[0].parameters[7] as string)).toEqual({
      since: '2026-01-01T00:00:00.000Z',
      until: '2026-01-02T00:00:00.000Z',
      deadOnly: 'true',
      replayed: '2',
    });
  });

  it('refuses bad ids, dates, spans and limits', async () => {
    const { useCase, calls } = build();
    expect(await refusedFields(() => useCase.execute({ ...base, partnerId: 'x', since: 'yesterday' }))).toMatch(
      /partnerId.*since/,
    );
    expect(await refusedFields(() => useCase.execute({ ...base, until: base.since }))).toMatch(/until/);
    expect(await refusedFields(() => useCase.execute({ ...base, until: '2026-03-01T00:00:00Z' }))).toMatch(/until/);
    expect(await refusedFields(() => useCase.execute({ ...base, limit: 1001 }))).toMatch(/limit/);
    expect(calls).toHaveLength(0);
  });
});
