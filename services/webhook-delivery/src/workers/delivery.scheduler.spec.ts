// Proves the scheduler's loop with fakes at its edges: a kick claims at once
// (no waiting for the poll), attempts in flight never exceed the per-replica
// bound and a finished attempt frees its slot, freed slots are refilled in
// batches and only while due rows may remain, and shutdown lets attempts
// finish within the grace period and aborts (without recording) the rest.
import { createLogger } from '@platform/logger';
import { Registry } from '@platform/metrics';
import type { NextDeliveryState } from '../domain/attempt-outcome';
import type { ClaimedDelivery, ClaimOptions, DeliveriesRepository } from '../persistence/deliveries.repository';
import type { AttemptDeliveryUseCase } from '../usecases/attempt-delivery/attempt-delivery.usecase';
import { DeliveryMetrics } from '../metrics/delivery-metrics';
import { DeliveryScheduler, DeliverySchedulerOptions } from './delivery.scheduler';

const logger = createLogger('webhook-delivery-spec', 'error');

const delivery = (index: number): ClaimedDelivery => ({
  deliveryId: `d-${index}`,
  createdAt: new Date('2026-01-01T00:00:00.000Z'),
  eventId: `e-${index}`,
  partnerId: 'p-1',
  eventType: 'credit.received',
  body: '{}',
  attemptCount: 0,
  replayCount: 0,
  leaseId: `l-${index}`,
  endpoint: null,
});

class FakeDeliveries {
  due: ClaimedDelivery[] = [];
  claimLimits: number[] = [];

  async claimDue(options: ClaimOptions): Promise<ClaimedDelivery[]> {
    this.claimLimits.push(options.limit);
    return this.due.splice(0, options.limit);
  }
}

class FakeAttempts {
  running = new Map<string, { resolve: () => void; signal?: AbortSignal }>();
  started: string[] = [];

  execute(claimed: ClaimedDelivery, signal?: AbortSignal): Promise<NextDeliveryState | null> {
    this.started.push(claimed.deliveryId);
    return new Promise((resolve) => {
      const finish = (value: NextDeliveryState | null) => {
        this.running.delete(claimed.deliveryId);
        resolve(value);
      };
      signal?.addEventListener('abort', () => finish(null));
      this.running.set(claimed.deliveryId, { resolve: () => finish({ status: 'delivered' }), signal });
    });
  }

  finish(deliveryId: string): void {
    this.running.get(deliveryId)?.resolve();
  }
}

const until = async (condition: () => boolean, timeoutMs = 2_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

function build(options: Partial<DeliverySchedulerOptions> = {}) {
  const deliveries = new FakeDeliveries();
  const attempts = new FakeAttempts();
  const scheduler = new DeliveryScheduler(
    deliveries as unknown as DeliveriesRepository,
    attempts as unknown as AttemptDeliveryUseCase,
    logger,
    {
      pollIntervalMs: 60_000,
      batchSize: 10,
      attemptsInFlightMax: 2,
      endpointInFlightMax: 4,
      leaseMs: 60_000,
      ...options,
    },
    new DeliveryMetrics(new Registry()),
  );
  return { deliveries, attempts, scheduler };
}

describe('DeliveryScheduler', () => {
  it('claims at once when kicked, without waiting for the poll', async () => {
    const { deliveries, attempts, scheduler } = build();
    scheduler.start();
    await until(() => deliveries.claimLimits.length >= 1); // the first, empty, look
    deliveries.due.push(delivery(1));
    scheduler.kick();
    await until(() => attempts.started.length === 1, 500);
    attempts.finish('d-1');
    await scheduler.stop(1_000);
  });

  it('never has more attempts in flight than its bound and refills a freed slot', async () => {
    const { deliveries, attempts, scheduler } = build({ attemptsInFlightMax: 2 });
    deliveries.due.push(delivery(1), delivery(2), delivery(3), delivery(4), delivery(5));
    scheduler.start();
    await until(() => attempts.started.length === 2);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(scheduler.inFlightCount()).toBe(2);
    expect(Math.max(...deliveries.claimLimits)).toBeLessThanOrEqual(2);
    attempts.finish('d-1');
    await until(() => attempts.started.length === 3);
    expect(scheduler.inFlightCount()).toBe(2);
    for (const id of ['d-2', 'd-3']) attempts.finish(id);
    await until(() => attempts.started.length === 5);
    for (const id of ['d-4', 'd-5']) attempts.finish(id);
    await scheduler.stop(1_000);
    expect(scheduler.inFlightCount()).toBe(0);
  });

  it('lets attempts finish within the grace period at shutdown', async () => {
    const { deliveries, attempts, scheduler } = build();
    deliveries.due.push(delivery(1));
    scheduler.start();
    await until(() => attempts.started.length === 1);
    setTimeout(() => attempts.finish('d-1'), 50);
    await scheduler.stop(1_000);
    expect(scheduler.inFlightCount()).toBe(0);
  });

  it('aborts attempts still running when the grace period ends, and claims nothing more', async () => {
    const { deliveries, attempts, scheduler } = build();
    deliveries.due.push(delivery(1));
    scheduler.start();
    await until(() => attempts.started.length === 1);
    const signal = attempts.running.get('d-1')?.signal;
    const claimsBefore = deliveries.claimLimits.length;
    await scheduler.stop(100);
    expect(signal?.aborted).toBe(true);
    expect(scheduler.inFlightCount()).toBe(0);
    deliveries.due.push(delivery(2));
    scheduler.kick();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(deliveries.claimLimits.length).toBe(claimsBefore);
  });

  it('refills freed slots in batches once a quarter of the bound is free, not after every attempt', async () => {
    const { deliveries, attempts, scheduler } = build({
      attemptsInFlightMax: 8,
      batchSize: 8,
      endpointInFlightMax: 100,
    });
    for (let index = 1; index <= 20; index += 1) deliveries.due.push(delivery(index));
    scheduler.start();
    await until(() => attempts.started.length === 8);
    const claims = deliveries.claimLimits.length;
    attempts.finish('d-1');
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(deliveries.claimLimits.length).toBe(claims); // one free slot: below a batch's worth
    attempts.finish('d-2');
    await until(() => attempts.started.length === 10);
    expect(deliveries.claimLimits.at(-1)).toBe(2);
    // Draining the rest: every claim after the first takes at least a batch's worth (2), never one at a time.
    await until(() => {
      for (const id of [...attempts.running.keys()]) attempts.finish(id);
      return attempts.started.length === 20;
    });
    expect(deliveries.claimLimits.slice(claims).every((limit) => limit >= 2)).toBe(true);
    for (const id of [...attempts.running.keys()]) attempts.finish(id);
    await scheduler.stop(1_000);
  });

  it('does not look again after an attempt when the last claim found everything that was due', async () => {
    const { deliveries, attempts, scheduler } = build({
      attemptsInFlightMax: 8,
      batchSize: 8,
      endpointInFlightMax: 100,
    });
    deliveries.due.push(delivery(1));
    scheduler.start();
    await until(() => attempts.started.length === 1);
    const claims = deliveries.claimLimits.length;
    attempts.finish('d-1');
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(deliveries.claimLimits.length).toBe(claims);
    // New work announced: it is claimed at once.
    deliveries.due.push(delivery(2));
    scheduler.kick();
    await until(() => attempts.started.length === 2, 500);
    attempts.finish('d-2');
    await scheduler.stop(1_000);
  });

  it('refills at once for an endpoint the last claim left at its cap, whose due rows wait for its slots', async () => {
    const { deliveries, attempts, scheduler } = build({
      attemptsInFlightMax: 64,
      batchSize: 32,
      endpointInFlightMax: 2,
    });
    // The fake hands out what is due regardless of the cap; two due rows, the endpoint's cap is 2.
    deliveries.due.push(delivery(1), delivery(2));
    scheduler.start();
    await until(() => attempts.started.length === 2);
    deliveries.due.push(delivery(3));
    attempts.finish('d-1');
    await until(() => attempts.started.length === 3, 500);
    for (const id of ['d-2', 'd-3']) attempts.finish(id);
    await scheduler.stop(1_000);
  });
});
