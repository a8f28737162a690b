// Proves the single replay's answers: the status after the call for a re-opened
// or an already open delivery (counted and audited only when re-opened),
// DELIVERY_NOT_FOUND for an unknown id, and VALIDATION_FAILED naming deliveryId
// for a malformed one; a partner's retry is asked in the partner's scope (failing ones
// re-opened, delivered ones not), counted against its per-minute limit only when it
// re-opens, and refused past the limit. The transaction is a fake that records its statements.
import { AppError } from '@platform/errors';
import { createLogger, runWithContext } from '@platform/logger';
import { Registry } from '@platform/metrics';
import type { DataSource } from '@platform/persistence';
import { DeliveryMetrics } from '../../metrics/delivery-metrics';
import type { DeliveriesRepository, ReplayedDelivery, ReplayScope } from '../../persistence/deliveries.repository';
import { ReplayDeliveryUseCase } from './replay-delivery.usecase';

const deliveryId = '0b8f3c1e-5d7a-4c2b-9e1f-3a4b5c6d7e8f';
const partnerId = '6f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11';

function build(answer: Omit<ReplayedDelivery, 'partnerId'> | null) {
  const metrics = new DeliveryMetrics(new Registry());
  const deliveries = {
    replayOne: async () => (answer ? { ...answer, partnerId } : null),
  } as unknown as DeliveriesRepository;
  const statements: Array<{ sql: string; parameters: unknown[] }> = [];
  const manager = { query: async (sql: string, parameters: unknown[]) => statements.push({ sql, parameters }) };
  const dataSource = {
    transaction: async (work: (m: unknown) => Promise<unknown>) => work(manager),
  } as unknown as DataSource;
  const useCase = new ReplayDeliveryUseCase(dataSource, deliveries, metrics, createLogger('spec', 'error'));
  return {
    useCase: {
      execute: (id: string) => runWithContext({ caller: 'ops', requestId: 'req-1' }, () => useCase.execute(id)),
    },
    metrics,
    statements,
  };
}

async function replayCount(metrics: DeliveryMetrics): Promise<number> {
  const metric = await metrics.registry.getSingleMetric('webhook_replays_total')?.get();
  return metric?.values[0]?.value ?? 0;
}

describe('ReplayDeliveryUseCase', () => {
  it('answers pending for a re-opened delivery, counts it and audits it', async () => {
    const { useCase, metrics, statements } = build({ status: 'pending', reopened: true });
    expect(await useCase.execute(deliveryId)).toEqual({ deliveryId, status: 'pending' });
    expect(await replayCount(metrics)).toBe(1);
    expect(statements).toHaveLength(1);
    expect(statements[0].sql).toMatch(/^INSERT INTO audit_records/);
    expect(statements[0].parameters.slice(0, 3)).toEqual(['webhook_delivery.replayed', partnerId, 'ops']);
  });

  it('answers the current status of a delivery already open, without counting or auditing it', async () => {
    const { useCase, metrics, statements } = build({ status: 'delivering', reopened: false });
    expect(await useCase.execute(deliveryId)).toEqual({ deliveryId, status: 'delivering' });
    expect(await replayCount(metrics)).toBe(0);
    expect(statements).toHaveLength(0);
  });

  it('refuses an unknown and a malformed id', async () => {
    await expect(build(null).useCase.execute(deliveryId)).rejects.toMatchObject({ code: 'DELIVERY_NOT_FOUND' });
    const malformed = build(null).useCase.execute('nope');
    await expect(malformed).rejects.toBeInstanceOf(AppError);
    await expect(malformed).rejects.toMatchObject({ code: 'VALIDATION_FAILED', fields: ['deliveryId'] });
  });
});

describe('ReplayDeliveryUseCase for a partner', () => {
  function buildForPartner(answer: Omit<ReplayedDelivery, 'partnerId'>, usedThisMinute: number) {
    const scopes: ReplayScope[] = [];
    const deliveries = {
      replayOne: async (_id: string, _manager: unknown, scope: ReplayScope) => (
        scopes.push(scope),
        { ...answer, partnerId }
      ),
    } as unknown as DeliveriesRepository;
    const statements: string[] = [];
    const manager = {
      query: async (sql: string) => {
        statements.push(sql);
        return sql.includes('count(*)') ? [{ used: usedThisMinute, wait_seconds: 42 }] : [];
      },
    };
    const dataSource = {
      transaction: async (work: (m: unknown) => Promise<unknown>) => work(manager),
    } as unknown as DataSource;
    const useCase = new ReplayDeliveryUseCase(
      dataSource,
      deliveries,
      new DeliveryMetrics(new Registry()),
      createLogger('spec', 'error'),
    );
    const execute = () =>
      runWithContext({ caller: 'gateway', requestId: 'req-2' }, () =>
        useCase.execute(deliveryId, { partnerId, retriesPerMinute: 3 }),
      );
    return { execute, scopes, statements };
  }

  it("asks in the partner's scope and spends a retry when it re-opens", async () => {
    const { execute, scopes, statements } = buildForPartner({ status: 'pending', reopened: true }, 2);
    expect(await execute()).toEqual({ deliveryId, status: 'pending' });
    expect(scopes).toEqual([{ partnerId, reopenFailing: true, reopenDelivered: false }]);
    expect(statements.some((sql) => sql.startsWith('INSERT INTO partner_retries'))).toBe(true);
  });

  it('spends nothing when the delivery is already open or delivered', async () => {
    const { execute, statements } = buildForPartner({ status: 'delivered', reopened: false }, 3);
    expect(await execute()).toEqual({ deliveryId, status: 'delivered' });
    expect(statements.some((sql) => sql.includes('partner_retries'))).toBe(false);
  });

  it('refuses a re-opening past the limit, with the wait', async () => {
    const { execute, statements } = buildForPartner({ status: 'pending', reopened: true }, 3);
    await expect(execute()).rejects.toMatchObject({ code: 'WEBHOOK_RETRY_LIMITED', retryAfterSeconds: 42 });
    expect(
      statements.some(
        (sql) => sql.startsWith('INSERT INTO partner_retries') || sql.startsWith('INSERT INTO audit_records'),
      ),
    ).toBe(false);
  });
});
