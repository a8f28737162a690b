// Proves the orphaned-holds walk with fakes at the edges (a ledger, one kind of owner with
// its statuses): from one page of the service's pending holds it voids exactly those whose
// owner is gone or final, leaves alone live owners and owners the service cannot read, and
// logs the void with the service's own owner fields; it pages by the last hold id, starting
// over after a short page, asking only for holds older than the minimum age; and a hold
// resolved meanwhile, or a void that fails, does not stop the page.
import { randomUUID } from 'node:crypto';
import { AppError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { HoldOwners, OrphanedHoldsWalk, OwnedHold } from './orphaned-holds';

const NOW = new Date('2025-01-01T12:00:00.000Z');
type Status = 'open' | 'done';

function hold(owner: string | undefined, holdId = randomUUID()): OwnedHold {
  return { holdId, owner, amount: '10.00', currency: 'KES' };
}

/** Owners `svc:thing:<id>`, final once 'done'. */
function setUp(pages: OwnedHold[][], rows: Record<string, Status>) {
  const logger = { error: jest.fn(), warn: jest.fn(), info: jest.fn() };
  const listOwnedHolds = jest.fn(async (_request: unknown) => ({ holds: pages.shift() ?? [] }));
  const voidHold = jest.fn(async (_request: { holdId: string }) => ({}));
  const statuses = jest.fn(async (ids: string[]) => new Map(ids.filter((id) => rows[id]).map((id) => [id, rows[id]])));
  const owners: HoldOwners<Status> = {
    service: 'svc',
    parse: (owner) => (owner?.startsWith('svc:thing:') ? owner.slice('svc:thing:'.length) : null),
    statuses,
    verdict: (status) => (status === null || status === 'done' ? 'void' : 'keep'),
    describe: (thingId, status) => ({ thingId, thingStatus: status ?? 'missing' }),
  };
  const walk = new OrphanedHoldsWalk({
    ledger: { listOwnedHolds, voidHold },
    owners,
    logger: logger as unknown as Logger,
    minAgeMs: 30_000,
    now: () => NOW,
  });
  return { walk, logger, listOwnedHolds, voidHold, statuses };
}

describe('OrphanedHoldsWalk', () => {
  it('voids the holds of missing or final owners, keeps live ones and leaves unreadable ones alone', async () => {
    const [gone, done, open] = [randomUUID(), randomUUID(), randomUUID()];
    const page = [hold(`svc:thing:${gone}`), hold(`svc:thing:${done}`), hold(`svc:thing:${open}`), hold('other:x')];
    const { walk, logger, voidHold, statuses } = setUp([page], { [done]: 'done', [open]: 'open' });
    expect(await walk.execute(50)).toBe(4);
    expect(statuses).toHaveBeenCalledWith([gone, done, open]);
    expect(voidHold.mock.calls.map(([request]) => request.holdId).sort()).toEqual(
      [page[0].holdId, page[1].holdId].sort(),
    );
    expect(logger.error).toHaveBeenCalledWith('pending hold with an owner svc cannot read; left alone', {
      holdId: page[3].holdId,
      owner: 'other:x',
    });
    expect(logger.warn).toHaveBeenCalledWith('orphaned hold voided', {
      holdId: page[0].holdId,
      thingId: gone,
      thingStatus: 'missing',
      amount: '10.00',
      currency: 'KES',
    });
  });

  it('asks for holds older than the minimum age, pages by the last hold id and starts over after a short page', async () => {
    const live = randomUUID();
    const full = [
      hold(`svc:thing:${live}`, '00000000-0000-4000-8000-000000000001'),
      hold(`svc:thing:${live}`, '00000000-0000-4000-8000-000000000002'),
    ];
    const { walk, listOwnedHolds, voidHold } = setUp([full, [hold(`svc:thing:${live}`)], []], { [live]: 'open' });
    expect(await walk.execute(2)).toBe(2);
    expect(await walk.execute(2)).toBe(1);
    await walk.execute(2);
    expect(listOwnedHolds.mock.calls.map(([request]) => request)).toEqual([
      { placedBefore: '2025-01-01T11:59:30.000Z', afterHoldId: undefined, limit: 2 },
      { placedBefore: '2025-01-01T11:59:30.000Z', afterHoldId: full[1].holdId, limit: 2 },
      { placedBefore: '2025-01-01T11:59:30.000Z', afterHoldId: undefined, limit: 2 },
    ]);
    expect(voidHold).not.toHaveBeenCalled();
  });

  it('goes on past a hold resolved meanwhile and past a void that fails', async () => {
    const page = [
      hold(`svc:thing:${randomUUID()}`),
      hold(`svc:thing:${randomUUID()}`),
      hold(`svc:thing:${randomUUID()}`),
    ];
    const { walk, logger, voidHold } = setUp([page], {});
    voidHold
      .mockRejectedValueOnce(new AppError('LEDGER_HOLD_ALREADY_RESOLVED'))
      .mockRejectedValueOnce(new Error('ledger unavailable'));
    expect(await walk.execute(50)).toBe(3);
    expect(voidHold).toHaveBeenCalledTimes(3);
    expect(logger.warn).toHaveBeenCalledTimes(2);
    expect(logger.warn).toHaveBeenCalledWith('orphaned hold not voided; the next pass retries', {
      holdId: page[1].holdId,
      error: expect.any(Error),
    });
  });
});
