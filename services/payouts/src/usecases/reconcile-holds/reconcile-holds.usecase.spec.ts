// Proves payouts' side of the hold reconciliation (the walk itself, paging and failed voids,
// is proved in @platform/saga's orphaned-holds spec): from one page of its pending holds it
// voids exactly those whose transfer or send is gone or final, reading transfers and sends
// from their own tables, and touches the rest (live owners, owners it cannot read).
import { randomUUID } from 'node:crypto';
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
      'pending hold with an owner payouts cannot read; left alone',
      expect.objectContaining({ owner: 'payouts:unknown:x' }),
    );
    expect(logger.warn).toHaveBeenCalledWith(
      'orphaned hold voided',
      expect.objectContaining({ holdId: page[0].holdId, ownerStatus: 'missing' }),
    );
  });
});
