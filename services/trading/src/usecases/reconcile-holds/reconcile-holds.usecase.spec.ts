// Proves trading's hold reconciliation with fakes at the edges: from one page of its pending
// holds it voids exactly those whose order is gone or final and touches the rest (live
// orders, owners it cannot read); it pages by the last hold id, starting over after a short
// page, asking only for holds older than the minimum age; and a hold resolved meanwhile, or
// a void that fails, does not stop the page.
import { randomUUID } from 'node:crypto';
import { AppError } from '@platform/errors';
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
      expect.stringContaining('cannot read'),
      expect.objectContaining({ owner: 'trading:quote:x' }),
    );
    expect(logger.warn).toHaveBeenCalledWith(
      'orphaned hold voided',
      expect.objectContaining({ orderId: ids.gone, orderStatus: 'missing' }),
    );
  });

  it('asks for holds older than the minimum age, pages by the last hold id and starts over after a short page', async () => {
    const live = randomUUID();
    const full = [
      hold(`trading:order:${live}`, '00000000-0000-4000-8000-000000000001'),
      hold(`trading:order:${live}`, '00000000-0000-4000-8000-000000000002'),
    ];
    const { useCase, listOwnedHolds, voidHold } = setUp([full, [hold(`trading:order:${live}`)], []], {
      [live]: 'funds_reserved',
    });
    expect(await useCase.execute(2)).toBe(2);
    expect(await useCase.execute(2)).toBe(1);
    await useCase.execute(2);
    const calls = listOwnedHolds.mock.calls as unknown as [ledger.ListOwnedHoldsRequest][];
    expect(calls.map(([request]) => request)).toEqual([
      { placedBefore: '2025-01-01T11:59:30.000Z', afterHoldId: undefined, limit: 2 },
      { placedBefore: '2025-01-01T11:59:30.000Z', afterHoldId: full[1].holdId, limit: 2 },
      { placedBefore: '2025-01-01T11:59:30.000Z', afterHoldId: undefined, limit: 2 },
    ]);
    expect(voidHold).not.toHaveBeenCalled();
  });

  it('goes on past a hold resolved meanwhile and past a void that fails', async () => {
    const page = [
      hold(`trading:order:${randomUUID()}`),
      hold(`trading:order:${randomUUID()}`),
      hold(`trading:order:${randomUUID()}`),
    ];
    const { useCase, logger, voidHold } = setUp([page], {});
    voidHold
      .mockRejectedValueOnce(new AppError('LEDGER_HOLD_ALREADY_RESOLVED'))
      .mockRejectedValueOnce(new Error('ledger unavailable'));
    expect(await useCase.execute(50)).toBe(3);
    expect(voidHold).toHaveBeenCalledTimes(3);
    expect(logger.warn).toHaveBeenCalledWith(
      expect.stringContaining('not voided'),
      expect.objectContaining({ holdId: page[1].holdId }),
    );
  });
});
