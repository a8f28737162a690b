// Proves how a bus event becomes a delivery: one row per (event, partner) with
// the partner envelope as its body, a held `no_endpoint` delivery (no URL) for a
// partner without an endpoint,
// and a thrown error (so the queue retries, then dead-letters) for a malformed event.
import type { BusEvent } from '@platform/events';
import { createLogger } from '@platform/logger';
import type { DeliveriesRepository, NewDelivery } from '../../persistence/deliveries.repository';
import type { EndpointRecord, EndpointsRepository } from '../../persistence/endpoints.repository';
import { DeliveryMetrics } from '../../metrics/delivery-metrics';
import { AcceptEventUseCase } from './accept-event.usecase';

const partnerId = '6f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11';
const event: BusEvent = {
  id: '0b8f3c1e-5d7a-4c2b-9e1f-3a4b5c6d7e8f',
  type: 'credit.received',
  createdAt: '2026-01-01T00:00:00.000Z',
  partnerId,
  data: { transactionId: 't-1' },
};
const endpoint = { partnerId, url: 'https://hooks.example.com/' } as EndpointRecord;

function build(found: EndpointRecord | null) {
  const inserted: NewDelivery[] = [];
  const endpoints = { find: async () => found } as unknown as EndpointsRepository;
  const deliveries = {
    insertIfAbsent: async (delivery: NewDelivery) => {
      const duplicate = inserted.some((row) => row.eventId === delivery.eventId && row.partnerId === delivery.partnerId);
      if (!duplicate) inserted.push(delivery);
      return !duplicate;
    },
  } as unknown as DeliveriesRepository;
  const useCase = new AcceptEventUseCase({ endpoints, deliveries, metrics: new DeliveryMetrics(false), logger: createLogger('spec', 'error') });
  return { useCase, inserted };
}

describe('AcceptEventUseCase', () => {
  it('creates one delivery whose body is the partner envelope', async () => {
    const { useCase, inserted } = build(endpoint);
    expect(await useCase.execute(event)).toBe('created');
    expect(inserted[0]).toMatchObject({ eventId: event.id, partnerId, eventType: 'credit.received', endpointUrl: 'https://hooks.example.com/' });
    expect(inserted[0]?.body).toBe('{"id":"0b8f3c1e-5d7a-4c2b-9e1f-3a4b5c6d7e8f","type":"credit.received","createdAt":"2026-01-01T00:00:00.000Z","data":{"transactionId":"t-1"}}');
    expect(inserted[0]?.deliveryId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('ignores the same event arriving again', async () => {
    const { useCase, inserted } = build(endpoint);
    await useCase.execute(event);
    expect(await useCase.execute(event)).toBe('duplicate');
    expect(inserted).toHaveLength(1);
  });

  it('holds the delivery, with no endpoint URL, for a partner without an endpoint', async () => {
    const { useCase, inserted } = build(null);
    expect(await useCase.execute(event)).toBe('no_endpoint');
    expect(inserted).toHaveLength(1);
    expect(inserted[0]).toMatchObject({ eventId: event.id, endpointUrl: null });
  });

  it('throws on a malformed event id so the queue can dead-letter it', async () => {
    const { useCase } = build(endpoint);
    await expect(useCase.execute({ ...event, id: 'not-a-uuid' })).rejects.toThrow();
  });
});
