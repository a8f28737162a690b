// Proves the range replay's bounds: a valid range reaches the repository with its
// dates and default limit; a bad partner id, malformed or reversed dates, a span
// over 31 days and an out-of-range limit are refused naming each field.
import { AppError } from '@platform/errors';
import { createLogger } from '@platform/logger';
import { Registry } from '@platform/metrics';
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
  return { useCase: new ReplayDeliveriesUseCase(deliveries, new DeliveryMetrics(new Registry()), createLogger('spec', 'error')), calls };
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
  const base = { partnerId, since: '2026-01-01T00:00:00.000Z', until: '2026-01-02T00:00:00Z', deadOnly: true, limit: 0 };

  it('replays a valid range with the default limit', async () => {
    const { useCase, calls } = build();
    expect(await useCase.execute(base)).toEqual({ replayed: 2, remaining: 0 });
    expect(calls[0]).toEqual({ partnerId, since: new Date(base.since), until: new Date(base.until), deadOnly: true, limit: 500 });
  });

  it('refuses bad ids, dates, spans and limits', async () => {
    const { useCase, calls } = build();
    expect(await refusedFields(() => useCase.execute({ ...base, partnerId: 'x', since: 'yesterday' }))).toMatch(/partnerId.*since/);
    expect(await refusedFields(() => useCase.execute({ ...base, until: base.since }))).toMatch(/until/);
    expect(await refusedFields(() => useCase.execute({ ...base, until: '2026-03-01T00:00:00Z' }))).toMatch(/until/);
    expect(await refusedFields(() => useCase.execute({ ...base, limit: 1001 }))).toMatch(/limit/);
    expect(calls).toHaveLength(0);
  });
});
