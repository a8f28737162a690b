// Proves settlement in rounds with fakes at the ledger and the transitions:
// the settle-ready orders of one claim are posted by ONE PostHolds call (each
// by its own request, the same request a retry sends) and moved to settled by
// ONE transition call on the first order's step; the later orders' steps only
// wait for their own outcome; a refused post fails that order's step alone; a
// PostHolds failing as a whole falls back to one PostHold per order; a failed
// move fails the step of every order it carried, and the retry of the claim
// posts the same requests again (the ledger answers a repeat with the posted
// hold) and moves them; an order whose hold the ledger does not know takes the
// one-order path.
import { AppError } from '@platform/errors';
import { createLogger } from '@platform/logger';
import type { OrderRecord } from '../../domain/order';
import { AdvanceDebitFirstBuyUseCase } from './advance-debit-first-buy.usecase';

const NOW = new Date('2026-11-26T12:00:00Z');

const order = (index: number, changes: Partial<OrderRecord> = {}) =>
  ({
    orderId: `00000000-0000-4000-8000-00000000000${index}`,
    partnerId: 'partner-1',
    quoteId: `quote-${index}`,
    side: 'buy',
    fundingMode: 'debit_first',
    status: 'funds_reserved',
    debitOutcome: 'accepted',
    kesAmount: '100.00',
    feeKes: '0.50',
    kesTotalAmount: '100.50',
    usdtAmount: '0.769230',
    refusalCode: null,
    ...changes,
  }) as OrderRecord;

function settlement(options: { postFails?: Map<string, AppError> } = {}) {
  const ledger = {
    placeHold: jest.fn().mockResolvedValue({}),
    postHold: jest.fn().mockImplementation(async (request: { holdId: string }) => {
      const failure = options.postFails?.get(request.holdId);
      if (failure) throw failure;
      return {};
    }),
    postHolds: jest.fn().mockImplementation(async ({ holds }: { holds: { holdId: string }[] }) => ({
      outcomes: holds.map((request) => {
        const failure = options.postFails?.get(request.holdId);
        return failure
          ? { hold: undefined, errorCode: failure.code }
          : { hold: { holdId: request.holdId }, errorCode: '' };
      }),
    })),
    voidHold: jest.fn().mockResolvedValue({}),
  };
  const transitions = {
    record: jest.fn().mockImplementation(async (moved: OrderRecord) => moved),
    recordMany: jest.fn().mockImplementation(async (moved: OrderRecord[]) => moved),
  };
  const useCase = new AdvanceDebitFirstBuyUseCase({
    ledger,
    serviceAccounts: { id: jest.fn(async (code: string, currency: string) => `${code}-${currency}`) } as never,
    accountIds: { of: jest.fn().mockResolvedValue({ kesAccountId: 'kes-1', usdtAccountId: 'usdt-1' }) } as never,
    transitions: transitions as never,
    bank: { debit: jest.fn(), lookup: jest.fn() },
    clock: { now: () => NOW },
    logger: createLogger('settlement-spec', 'error'),
    settlementDelayMs: 1,
  });
  return { useCase, ledger, transitions };
}

/** The scheduler's shape: the claim is announced, then each order's step runs in turn. */
async function runClaim(
  useCase: AdvanceDebitFirstBuyUseCase,
  orders: OrderRecord[],
): Promise<PromiseSettledResult<void>[]> {
  useCase.claimed(orders);
  const results: PromiseSettledResult<void>[] = [];
  for (const claimed of orders) {
    results.push(
      await useCase.execute(claimed).then(
        () => ({ status: 'fulfilled', value: undefined }) as const,
        (reason: unknown) => ({ status: 'rejected', reason }) as const,
      ),
    );
  }
  return results;
}

const postedHoldIds = (ledger: ReturnType<typeof settlement>['ledger'], call = 0) =>
  ledger.postHolds.mock.calls[call][0].holds.map((request: { holdId: string }) => request.holdId);

it('posts every hold of the claim in one ledger call and moves them all to settled in one transition call', async () => {
  const { useCase, ledger, transitions } = settlement();
  const orders = [order(1), order(2), order(3)];
  const results = await runClaim(useCase, orders);
  expect(results.every((result) => result.status === 'fulfilled')).toBe(true);
  expect(ledger.postHolds).toHaveBeenCalledTimes(1);
  expect(postedHoldIds(ledger)).toEqual(orders.map((claimed) => claimed.orderId));
  expect(ledger.postHolds.mock.calls[0][0].holds[0]).toMatchObject({
    postAmount: '100.50',
    kind: 'order_buy_settlement',
    counterPostings: [
      { accountId: 'treasury-KES', amount: '100.00' },
      { accountId: 'fee_revenue-KES', amount: '0.50' },
      { accountId: 'treasury-USDT', amount: '-0.769230' },
      { accountId: 'usdt-1', amount: '0.769230' },
    ],
  });
  expect(ledger.postHold).not.toHaveBeenCalled();
  expect(transitions.recordMany).toHaveBeenCalledTimes(1);
  expect(transitions.recordMany).toHaveBeenCalledWith(
    expect.arrayContaining(orders),
    expect.objectContaining({
      from: 'funds_reserved',
      event: 'order.settled',
      changes: expect.objectContaining({ status: 'settled', kesDebitStatus: 'debited', nextActionAt: null }),
    }),
  );
  expect(transitions.record).not.toHaveBeenCalled();
});

it('a refused post fails that order alone, with the code the ledger answered; the others settle in the one move', async () => {
  const failing = order(2);
  const { useCase, transitions } = settlement({
    postFails: new Map([[failing.orderId, new AppError('LEDGER_HOLD_ALREADY_RESOLVED')]]),
  });
  const results = await runClaim(useCase, [order(1), failing, order(3)]);
  expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'LEDGER_HOLD_ALREADY_RESOLVED' });
  expect(transitions.recordMany).toHaveBeenCalledTimes(1);
  expect(transitions.recordMany.mock.calls[0][0].map((moved: OrderRecord) => moved.orderId).sort()).toEqual([
    order(1).orderId,
    order(3).orderId,
  ]);
});

it('a failed move fails every order it carried; the retry posts the same requests and moves them once', async () => {
  const { useCase, ledger, transitions } = settlement();
  transitions.recordMany.mockRejectedValueOnce(new Error('connection lost'));
  const orders = [order(1), order(2)];
  const first = await runClaim(useCase, orders);
  expect(first.map((result) => result.status)).toEqual(['rejected', 'rejected']);
  const second = await runClaim(useCase, orders);
  expect(second.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled']);
  // Same hold ids, same bodies: the ledger answers the repeat with the posted hold, never a second entry.
  const [firstCall, secondCall] = ledger.postHolds.mock.calls.map(([request]) => JSON.stringify(request.holds));
  expect(secondCall).toEqual(firstCall);
  expect(transitions.recordMany).toHaveBeenCalledTimes(2);
});

it('a PostHolds failing as a whole falls back to one PostHold per order, and the round still moves once', async () => {
  const { useCase, ledger, transitions } = settlement();
  ledger.postHolds.mockRejectedValueOnce(new AppError('SERVICE_UNAVAILABLE'));
  const orders = [order(1), order(2), order(3)];
  const results = await runClaim(useCase, orders);
  expect(results.every((result) => result.status === 'fulfilled')).toBe(true);
  expect(ledger.postHold.mock.calls.map(([request]) => request.holdId).sort()).toEqual(
    orders.map((claimed) => claimed.orderId),
  );
  expect(JSON.stringify(ledger.postHold.mock.calls[0][0])).toEqual(
    JSON.stringify(ledger.postHolds.mock.calls[0][0].holds[0]),
  );
  expect(transitions.recordMany).toHaveBeenCalledTimes(1);
});

it('an order whose hold the ledger does not know places it, posts it and settles on its own', async () => {
  const unknownHold = order(2);
  const { useCase, ledger, transitions } = settlement({
    postFails: new Map([[unknownHold.orderId, new AppError('LEDGER_HOLD_NOT_FOUND')]]),
  });
  // Alone, the hold is unknown until placed.
  ledger.postHold.mockImplementation(async (request: { holdId: string }) => {
    if (request.holdId === unknownHold.orderId && ledger.placeHold.mock.calls.length === 0)
      throw new AppError('LEDGER_HOLD_NOT_FOUND');
    return {};
  });
  const results = await runClaim(useCase, [order(1), unknownHold]);
  expect(results.every((result) => result.status === 'fulfilled')).toBe(true);
  expect(ledger.placeHold).toHaveBeenCalledWith(expect.objectContaining({ holdId: unknownHold.orderId }));
  expect(transitions.recordMany.mock.calls[0][0]).toEqual([order(1)]);
  expect(transitions.record).toHaveBeenCalledWith(unknownHold, expect.objectContaining({ event: 'order.settled' }));
});

it('a lone settle-ready order, or one outside the claim, settles by the one-order path', async () => {
  const { useCase, transitions } = settlement();
  await runClaim(useCase, [order(1), order(4, { debitOutcome: 'pending' })]);
  expect(transitions.recordMany).not.toHaveBeenCalled();
  expect(transitions.record).toHaveBeenCalledWith(order(1), expect.objectContaining({ event: 'order.settled' }));
});
