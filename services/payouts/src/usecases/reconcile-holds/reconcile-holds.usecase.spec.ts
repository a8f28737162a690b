// Proves payouts' hold reconciliation with fakes at the edges: from one page of its pending
// holds it voids exactly those whose transfer or send is gone or final and touches the
// rest (live owners, owners it cannot read); it pages through the holds by the last id and
// starts over after a short page; it asks only for holds older than the minimum age; and a
// hold resolved meanwhile, or a void that fails, neither stops the page nor is retried blindly.
import { randomUUID } from 'node:crypto';
import { AppError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import type { DataSource } from '@platform/persistence';
import type { ledger } from '@platform/proto';
import type { OwnerStatus } from '../../domain/hold-owner';
import { ReconcileHoldsUseCase } from './reconcile-holds.usecase';

const NOW = new Date('2025-01-01T12:00:00.000Z');

function hold(owner: string | undefined): ledger.Hold {
  return {
    holdId: randomUUID(),
    accountId: randomUUID(),
    currency: 'KES',
    amount: '125.00',
    status: 'pending',
    postedAmount: '0.00',
    createdAt: NOW.toISOString(),
    metadata: {},
    owner,
  };
}

function setUp(
  pages: ledger.Hold[][],
  rows: { transfers?: Record<string, OwnerStatus>; sends?: Record<string, OwnerStatus> },
) {
  const logger = { error: jest.fn(), warn: jest.fn(), info: jest.fn() };
  const listOwnedHolds = jest.fn(async () => ({ holds: pages.shift() ?? [] }));
  const voidHold = jest.fn(async ({ holdId }: { holdId: string }) => ({
    ...hold(undefined),
    holdId,
    status: 'voided',
  }));
  const statuses = (table: Record<string, OwnerStatus> = {}) => ({
    statusesOf: jest.fn(
      async (_manager: unknown, ids: string[]) => new Map(ids.filter((id) => table[id]).map((id) => [id, table[id]])),
    ),
  });
  const useCase = new ReconcileHoldsUseCase({
    dataSource: { manager: {} } as DataSource,
    transfers: statuses(rows.transfers),
    sends: statuses(rows.sends),
    ledger: { listOwnedHolds, voidHold } as never,
    logger: logger as unknown as Logger,
    minAgeMs: 60_000,
    now: () => NOW,
  });
  return { useCase, logger, listOwnedHolds, voidHold };
}

describe('ReconcileHoldsUseCase', () => {
  it('voids the holds of missing or final owners and keeps every live one', async () => {
    const [gone, settled, failed, expired, creating, awaiting, confirmed, sendGone, sendLive] = Array.from(
      { length: 9 },
      () => randomUUID(),
    );
    const page = [
      hold(`payouts:transfer:${gone}`),
      hold(`payouts:transfer:${settled}`),
      hold(`payouts:transfer:${failed}`),
      hold(`payouts:transfer:${expired}`),
      hold(`payouts:transfer:${creating}`),
      hold(`payouts:transfer:${awaiting}`),
      hold(`payouts:transfer:${confirmed}`),
      hold(`payouts:usdt_send:${sendGone}`),
      hold(`payouts:usdt_send:${sendLive}`),
      hold('payouts:unknown:x'),
    ];
    const { useCase, logger, voidHold } = setUp([page], {
      transfers: {
        [settled]: 'settled',
        [failed]: 'failed',
        [expired]: 'expired',
        [creating]: 'creating',
        [awaiting]: 'awaiting_confirmation',
        [confirmed]: 'confirmed',
      },
      // Sends are read from their own table.
      sends: { [sendLive]: 'confirmed' },
    });
    expect(await useCase.execute(50)).toBe(10);
    expect(voidHold.mock.calls.map(([request]) => request.holdId).sort()).toEqual(
      [page[0], page[1], page[2], page[3], page[7]].map((h) => h.holdId).sort(),
    );
    expect(logger.error).toHaveBeenCalledWith(
      expect.stringContaining('cannot read'),
      expect.objectContaining({ owner: 'payouts:unknown:x' }),
    );
    expect(logger.warn).toHaveBeenCalledWith(
      'orphaned hold voided',
      expect.objectContaining({ holdId: page[0].holdId, ownerStatus: 'missing' }),
    );
  });

  it('asks for holds older than the minimum age, pages by the last hold id and starts over after a short page', async () => {
    const full = [hold(undefined), hold(undefined)].map((h, index) => ({
      ...h,
      owner: `payouts:transfer:${randomUUID()}`,
      holdId: `0000000${index}-0000-4000-8000-000000000000`,
    }));
    const { useCase, listOwnedHolds } = setUp([full, [], []], {
      transfers: Object.fromEntries(full.map((h) => [h.owner!.split(':')[2], 'confirmed' as OwnerStatus])),
    });
    expect(await useCase.execute(2)).toBe(2);
    expect(await useCase.execute(2)).toBe(0);
    await useCase.execute(2);
    const calls = listOwnedHolds.mock.calls as unknown as [ledger.ListOwnedHoldsRequest][];
    expect(calls.map(([request]) => request)).toEqual([
      { placedBefore: '2025-01-01T11:59:00.000Z', afterHoldId: undefined, limit: 2 },
      { placedBefore: '2025-01-01T11:59:00.000Z', afterHoldId: full[1].holdId, limit: 2 },
      { placedBefore: '2025-01-01T11:59:00.000Z', afterHoldId: undefined, limit: 2 },
    ]);
  });

  it('goes on past a hold resolved meanwhile and past a void that fails', async () => {
    const page = [
      hold(`payouts:transfer:${randomUUID()}`),
      hold(`payouts:transfer:${randomUUID()}`),
      hold(`payouts:transfer:${randomUUID()}`),
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
