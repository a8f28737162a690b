// Proves trading's side of the hold reconciliation (the walk itself, paging and failed voids,
// is proved in @platform/saga's orphaned-holds spec): from one page of its pending holds it
// voids exactly those whose order is gone or final and touches the rest (live orders,
// owners it cannot read), logging the order a voided hold belonged to.
import { randomUUID } from 'node:crypto';
import type { Logger } from '@platform/logger';
import type { ledger } from '@platform/proto';
import type { OrderStatus } from '../../domain/order';
import { ReconcileHoldsUseCase } from './reconcile-holds.usecase';

const NOW = new Date('2025-01-01T12:00:00.000Z');

function hold(owner: string | undefined, holdId = randomUUID()): ledger.Hold {
  return {
    holdId,
    accountId: randomUUID(),
    currency: 'USDT',
    amount: '10.000000',
    status: 'pending',
    postedAmount: '0.000000',
    createdAt: NOW.toISOString(),
    metadata: {},
    owner,
  };
}

function setUp(pages: ledger.Hold[][], orders: Record<string, OrderStatus>) {
  const logger = { error: jest.fn(), warn: jest.fn(), info: jest.fn() };
  const listOwnedHolds = jest.fn(async () => ({ holds: pages.shift() ?? [] }));
  const voidHold = jest.fn(async ({ holdId }: { holdId: string }) => ({
    ...hold(undefined, holdId),
    status: 'voided',
  }));
  const orderStatuses = jest.fn(
    async (ids: string[]) => new Map(ids.filter((id) => orders[id]).map((id) => [id, orders[id]])),
  );
  const useCase = new ReconcileHoldsUseCase({
    orderStatuses,
    ledger: { listOwnedHolds, voidHold } as never,
    logger: logger as unknown as Logger,
    minAgeMs: 30_000,
    now: () => NOW,
  });
  return { useCase, logger, listOwnedHolds, voidHold, orderStatuses };
}

describe('ReconcileHoldsUseCase', () => {
  it('voids the holds of missing or final orders and keeps every live one', async () => {
    const ids = Object.fromEntries(
      ['gone', 'settled', 'rejected', 'expired', 'awaiting_usdt', 'awaiting_payment', 'funds_reserved'].map((name) => [
        name,
        randomUUID(),
      ]),
    );
    const page = Object.values(ids).map((orderId) => hold(`trading:order:${orderId}`, orderId));
    page.push(hold('trading:quote:x'));
    const { useCase, logger, voidHold, orderStatuses } = setUp(
      [page],
      Object.fromEntries(
        Object.entries(ids)
          .filter(([name]) => name !== 'gone')
          .map(([name, id]) => [id, name as OrderStatus]),
      ),
    );
    expect(await useCase.execute(50)).toBe(8);
    expect(orderStatuses).toHaveBeenCalledWith(Object.values(ids));
    expect(voidHold.mock.calls.map(([request]) => request.holdId).sort()).toEqual(
      [ids.gone, ids.settled, ids.rejected, ids.expired].sort(),
    );
    expect(logger.error).toHaveBeenCalledWith(
      'pending hold with an owner trading cannot read; left alone',
      expect.objectContaining({ owner: 'trading:quote:x' }),
    );
    expect(logger.warn).toHaveBeenCalledWith(
      'orphaned hold voided',
      expect.objectContaining({ orderId: ids.gone, orderStatus: 'missing' }),
    );
  });
});
