// Proves the single replay's answers: the status after the call for a re-opened
// or an already open delivery (counted only when re-opened), DELIVERY_NOT_FOUND
// for an unknown id, and VALIDATION_FAILED naming deliveryId for a malformed one.
import { AppError } from '@platform/errors';
import { createLogger } from '@platform/logger';
import { Registry } from '@platform/metrics';
import { DeliveryMetrics } from '../../metrics/delivery-metrics';
import type { DeliveriesRepository, DeliveryStatus } from '../../persistence/deliveries.repository';
import { ReplayDeliveryUseCase } from './replay-delivery.usecase';

const deliveryId = '0b8f3c1e-5d7a-4c2b-9e1f-3a4b5c6d7e8f';

function build(answer: { status: DeliveryStatus; reopened: boolean } | null) {
  const metrics = new DeliveryMetrics(new Registry());
  const deliveries = { replayOne: async () => answer } as unknown as DeliveriesRepository;
  return { useCase: new ReplayDeliveryUseCase(deliveries, metrics, createLogger('spec', 'error')), metrics };
}

async function replayCount(metrics: DeliveryMetrics): Promise<number> {
  const metric = await metrics.registry.getSingleMetric('webhook_replays_total')?.get();
  return metric?.values[0]?.value ?? 0;
}

describe('ReplayDeliveryUseCase', () => {
  it('answers pending for a re-opened delivery and counts it', async () => {
    const { useCase, metrics } = build({ status: 'pending', reopened: true });
    expect(await useCase.execute(deliveryId)).toEqual({ deliveryId, status: 'pending' });
    expect(await replayCount(metrics)).toBe(1);
  });

  it('answers the current status of a delivery already open, without counting it', async () => {
    const { useCase, metrics } = build({ status: 'delivering', reopened: false });
    expect(await useCase.execute(deliveryId)).toEqual({ deliveryId, status: 'delivering' });
    expect(await replayCount(metrics)).toBe(0);
  });

  it('refuses an unknown and a malformed id', async () => {
    await expect(build(null).useCase.execute(deliveryId)).rejects.toMatchObject({ code: 'DELIVERY_NOT_FOUND' });
    const malformed = build(null).useCase.execute('nope');
    await expect(malformed).rejects.toBeInstanceOf(AppError);
    await expect(malformed).rejects.toMatchObject({ code: 'VALIDATION_FAILED', fields: ['deliveryId'] });
  });
});
