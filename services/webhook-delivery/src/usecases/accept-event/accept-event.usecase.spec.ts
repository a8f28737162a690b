// Proves how bus events become deliveries, a batch at a time: one row per
// (event, partner) with the partner envelope as its body (never the trace context,
// which the delivery keeps beside it for its attempts); a redelivered event is a
// duplicate; a partner without an endpoint gets a held delivery, opened at once if
// the endpoint appeared meanwhile; a malformed event fails alone (the queue retries,
// then dead-letters it) and, when the batch statement fails, the events are tried
// one by one so only the one that cannot be written fails; a batch refused for a
// week that is missing gets its weeks created and is tried once more (and, if they
// cannot be created, goes back to the queue, the weeks asked for once per batch).
import type { BusEvent } from '@platform/events';
import { createLogger } from '@platform/logger';
import { Registry } from '@platform/metrics';
import type { InsertOutcome, NewDelivery } from '../../persistence/deliveries.repository';
import { DeliveryMetrics } from '../../metrics/delivery-metrics';
import { AcceptEventUseCase } from './accept-event.usecase';

const partnerId = '6f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11';
const otherPartnerId = '2a0d3c4e-5f60-4718-8a9b-0c1d2e3f4a5b';
const event = (id: string, partner = partnerId): BusEvent => ({
  id,
  type: 'credit.received',
  createdAt: '2026-01-01T00:00:00.000Z',
  partnerId: partner,
  data: { transactionId: 't-1' },
});
const first = event('0b8f3c1e-5d7a-4c2b-9e1f-3a4b5c6d7e8f');
const second = event('1c9a4d2f-6e8b-4d3c-8f2a-4b5c6d7e8f90');

/** PostgreSQL's refusal of a row whose week is not there. */
const noPartition = () =>
  Object.assign(new Error('no partition of relation "webhook_deliveries" found for row'), { code: '23514' });

function build(
  options: {
    withEndpoint?: Set<string>;
    endpointAfterInsert?: Set<string>;
    poison?: string;
    /** The week is missing: created when asked for, or its creation fails. */
    missingWeek?: 'created when asked' | 'cannot be created';
  } = {},
) {
  const rows: NewDelivery[] = [];
  const statements: number[] = [];
  const opened: string[] = [];
  const weeksAskedFor: number[] = [];
  let weekThere = options.missingWeek === undefined;
  const withEndpoint = options.withEndpoint ?? new Set([partnerId, otherPartnerId]);
  const deliveries = {
    createFiledWeeks: async (batch: readonly NewDelivery[]): Promise<string[]> => {
      weeksAskedFor.push(batch.length);
      if (options.missingWeek === 'cannot be created') throw new Error('canceling statement due to lock timeout');
      weekThere = true;
      return ['webhook_deliveries_20251229'];
    },
    insertMany: async (batch: readonly NewDelivery[]): Promise<InsertOutcome[]> => {
      statements.push(batch.length);
      if (!weekThere) throw noPartition();
      if (options.poison && batch.some((delivery) => delivery.eventId === options.poison))
        throw new Error('invalid byte sequence');
      return batch.map((delivery) => {
        if (rows.some((row) => row.eventId === delivery.eventId && row.partnerId === delivery.partnerId))
          return 'duplicate';
        rows.push(delivery);
        return withEndpoint.has(delivery.partnerId) ? 'pending' : 'no_endpoint';
      });
    },
    openHeld: async (id: string) => {
      opened.push(id);
      return 1;
    },
  };
  const endpoints = {
    findUrls: async (ids: readonly string[]) =>
      new Map(ids.filter((id) => options.endpointAfterInsert?.has(id)).map((id) => [id, 'https://hooks.example.com/'])),
  };
  const useCase = new AcceptEventUseCase({
    endpoints,
    deliveries,
    metrics: new DeliveryMetrics(new Registry()),
    logger: createLogger('spec', 'error'),
  });
  return { useCase, rows, statements, opened, weeksAskedFor };
}

describe('AcceptEventUseCase', () => {
  it('creates a batch of deliveries in one statement, each body the partner envelope', async () => {
    const { useCase, rows, statements } = build();
    expect(await useCase.execute([first, second])).toEqual(['created', 'created']);
    expect(statements).toEqual([2]);
    expect(rows[0]).toMatchObject({ eventId: first.id, partnerId, eventType: 'credit.received' });
    expect(rows[0]?.body).toBe(
      '{"id":"0b8f3c1e-5d7a-4c2b-9e1f-3a4b5c6d7e8f","type":"credit.received","createdAt":"2026-01-01T00:00:00.000Z","data":{"transactionId":"t-1"}}',
    );
    expect(rows[0]?.deliveryId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('keeps the trace context the event arrived with beside the body, and null without one', async () => {
    const { useCase, rows } = build();
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    expect(await useCase.execute([{ ...first, traceparent }, second])).toEqual(['created', 'created']);
    expect(rows.map((row) => row.traceparent)).toEqual([traceparent, null]);
    expect(rows[0]?.body).not.toContain('traceparent');
  });

  it('ignores the same event arriving again', async () => {
    const { useCase, rows } = build();
    await useCase.execute([first]);
    expect(await useCase.execute([first, second])).toEqual(['duplicate', 'created']);
    expect(rows).toHaveLength(2);
  });

  it('holds the delivery for a partner without an endpoint, and opens it if the endpoint appeared meanwhile', async () => {
    const held = build({ withEndpoint: new Set() });
    expect(await held.useCase.execute([first])).toEqual(['no_endpoint']);
    expect(held.opened).toEqual([]);
    const raced = build({ withEndpoint: new Set(), endpointAfterInsert: new Set([partnerId]) });
    expect(await raced.useCase.execute([first, event(second.id, otherPartnerId)])).toEqual(['created', 'no_endpoint']);
    expect(raced.opened).toEqual([partnerId]);
  });

  it('fails a malformed event alone, so the queue can retry and dead-letter it', async () => {
    const { useCase, rows } = build();
    const results = await useCase.execute([{ ...first, id: 'not-a-uuid' }, second]);
    expect(results[0]).toBeInstanceOf(Error);
    expect(results[1]).toBe('created');
    expect(rows).toHaveLength(1);
  });

  it('tries the events one by one when the batch statement fails, failing only the one that cannot be written', async () => {
    const { useCase, statements } = build({ poison: first.id });
    const results = await useCase.execute([first, second]);
    expect(results[0]).toBeInstanceOf(Error);
    expect(results[1]).toBe('created');
    expect(statements).toEqual([2, 1, 1]);
  });

  it('creates the weeks of a batch refused for a missing week and tries it once more, each event written once', async () => {
    const { useCase, rows, statements, weeksAskedFor } = build({ missingWeek: 'created when asked' });
    expect(await useCase.execute([first, second])).toEqual(['created', 'created']);
    expect(weeksAskedFor).toEqual([2]);
    expect(statements).toEqual([2, 2]);
    expect(rows.map((row) => row.eventId)).toEqual([first.id, second.id]);
  });

  it('leaves the batch to the queue when its missing week cannot be created, asking for it once', async () => {
    const { useCase, rows, statements, weeksAskedFor } = build({ missingWeek: 'cannot be created' });
    const results = await useCase.execute([first, second]);
    expect(results.every((result) => result instanceof Error)).toBe(true);
    expect(weeksAskedFor).toEqual([2]);
    expect(statements).toEqual([2, 1, 1]);
    expect(rows).toEqual([]);
  });
});
