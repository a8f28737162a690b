// Proves what trading does with payouts' report on a sell order's proceeds, with
// fakes at the edges (ledger, transitions, orders): accepted moves only the
// order's timer (due again after the poll interval); settled posts ONE entry
// (deposit mode) or posts the hold (balance mode) and settles with
// order.settled; failed rejects with order.rejected and the cap released (a
// balance-mode hold voided first); a report for an order no longer awaiting its
// proceeds changes nothing and answers its status; bad reports are refused by
// name, and an unknown order is ORDER_NOT_FOUND. Also: the claim answers the
// same payout for an order every time, its instruction id being the order id.
import type { Logger } from '@platform/logger';
import type { OrderRecord } from '../../domain/order';
import { ClaimDueSellProceedsUseCase } from '../claim-due-sell-proceeds/claim-due-sell-proceeds.usecase';
import { RecordSellProceedsOutcomeUseCase } from './record-sell-proceeds-outcome.usecase';

const NOW = new Date('2026-01-01T12:00:00.000Z');
const POLL_MS = 250;
const ORDER_ID = '2b0c7a51-0f7e-4b8e-9d6a-3c1f0e9a7b21';

function funded(changes: Partial<OrderRecord> = {}): OrderRecord {
  return {
    orderId: ORDER_ID,
    partnerId: '9a7d2c1e-4b3f-4e6a-8c5d-1f2e3d4c5b6a',
    side: 'sell',
    fundingMode: 'deposit',
    status: 'funds_reserved',
    debitOutcome: null,
    usdtAmount: '10.000000',
    depositUsdtAmount: '10.500000',
    kesAmount: '1280.00',
    feeKes: '6.40',
    kesTotalAmount: '1273.60',
    payoutAccountId: '5f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0',
    payoutInstructionId: null,
    ...changes,
  } as OrderRecord;
}

function setUp(order: OrderRecord | null) {
  const ledger = { postEntry: jest.fn(async () => ({})), postHold: jest.fn(async () => ({})), voidHold: jest.fn() };
  const record = jest.fn(async (current: OrderRecord, transition: { changes: Partial<OrderRecord> }) => ({
    ...current,
    ...transition.changes,
  }));
  const useCase = new RecordSellProceedsOutcomeUseCase({
    orders: { find: jest.fn(async () => order) },
    ledger: ledger as never,
    serviceAccounts: { id: async (code: string, currency: string) => `${code}:${currency}` } as never,
    accountIds: { of: async () => ({ usdtAccountId: 'partner:USDT' }) } as never,
    transitions: { record } as never,
    clock: { now: () => NOW },
    logger: { warn: jest.fn() } as unknown as Logger,
    payoutPollMs: POLL_MS,
  });
  return { useCase, ledger, record };
}

const report = (outcome: string, failureCode?: string) => ({
  orderId: ORDER_ID,
  instructionId: ORDER_ID,
  outcome,
  failureCode,
});

describe('RecordSellProceedsOutcomeUseCase', () => {
  it('accepted: the order is due again after the poll interval, nothing posted', async () => {
    const { useCase, ledger, record } = setUp(funded());
    expect(await useCase.execute(report('accepted'))).toEqual({ orderStatus: 'funds_reserved' });
    expect(record).toHaveBeenCalledWith(funded(), {
      from: 'funds_reserved',
      changes: { payoutInstructionId: ORDER_ID, nextActionAt: new Date(NOW.getTime() + POLL_MS) },
    });
    expect(ledger.postEntry).not.toHaveBeenCalled();
  });

  it('settled (deposit mode): one balanced entry, then settled with order.settled', async () => {
    const { useCase, ledger, record } = setUp(funded());
    expect(await useCase.execute(report('settled'))).toEqual({ orderStatus: 'settled' });
    expect(ledger.postEntry).toHaveBeenCalledWith({
      entryId: ORDER_ID,
      kind: 'order_sell_settlement',
      partnerId: funded().partnerId,
      postings: [
        { accountId: 'suspense:USDT', amount: '-10.500000' },
        { accountId: 'treasury:USDT', amount: '10.000000' },
        { accountId: 'partner:USDT', amount: '0.500000' },
        { accountId: 'treasury:KES', amount: '-1280.00' },
        { accountId: 'fee_revenue:KES', amount: '6.40' },
        { accountId: 'bank_clearing:KES', amount: '1273.60' },
      ],
      metadata: { orderId: ORDER_ID },
    });
    expect(record.mock.calls[0][1]).toMatchObject({ from: 'funds_reserved', event: 'order.settled' });
    expect(record.mock.calls[0][1].changes).toMatchObject({ status: 'settled', nextActionAt: null, completedAt: NOW });
  });

  it('settled (balance mode): posts the hold instead', async () => {
    const { useCase, ledger } = setUp(funded({ fundingMode: 'balance', debitOutcome: 'accepted' }));
    await useCase.execute(report('settled'));
    expect(ledger.postEntry).not.toHaveBeenCalled();
    expect(ledger.postHold).toHaveBeenCalledWith(
      expect.objectContaining({ holdId: ORDER_ID, postAmount: '10.000000', kind: 'order_sell_settlement' }),
    );
  });

  it('failed: rejected with order.rejected and the cap released; a balance hold is voided first', async () => {
    const deposit = setUp(funded());
    expect(await deposit.useCase.execute(report('failed', 'PROVIDER_REJECTED'))).toEqual({ orderStatus: 'rejected' });
    expect(deposit.ledger.voidHold).not.toHaveBeenCalled();
    expect(deposit.record.mock.calls[0][1]).toMatchObject({ event: 'order.rejected', releaseCap: true });
    const balance = setUp(funded({ fundingMode: 'balance', debitOutcome: 'accepted' }));
    await balance.useCase.execute(report('failed', 'PROVIDER_REJECTED'));
    expect(balance.ledger.voidHold).toHaveBeenCalledWith({ holdId: ORDER_ID });
  });

  it('changes nothing for an order no longer awaiting its proceeds, or whose collection is pending', async () => {
    for (const order of [
      funded({ status: 'settled' }),
      funded({ status: 'awaiting_usdt' }),
      funded({ fundingMode: 'balance', debitOutcome: 'pending' }),
    ]) {
      const { useCase, ledger, record } = setUp(order);
      expect(await useCase.execute(report('settled'))).toEqual({ orderStatus: order.status });
      expect(record).not.toHaveBeenCalled();
      expect(ledger.postEntry).not.toHaveBeenCalled();
    }
  });

  it('refuses bad reports by name and unknown orders', async () => {
    const { useCase } = setUp(funded());
    await expect(
      useCase.execute({ orderId: ORDER_ID, instructionId: '7f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0', outcome: 'paid' }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED', fields: ['instructionId', 'outcome'] });
    await expect(useCase.execute(report('failed'))).rejects.toMatchObject({ fields: ['failureCode'] });
    await expect(setUp(null).useCase.execute(report('accepted'))).rejects.toMatchObject({ code: 'ORDER_NOT_FOUND' });
  });
});

describe('ClaimDueSellProceedsUseCase', () => {
  it('hands out the same payout for an order on every claim, within the limit bounds', async () => {
    const claimDueSellProceeds = jest.fn(async () => [funded(), funded()]);
    const useCase = new ClaimDueSellProceedsUseCase({
      dataSource: { manager: {} } as never,
      orders: { claimDueSellProceeds },
      leaseMs: 30_000,
    });
    const [first, again] = await useCase.execute({ limit: 0 });
    expect(first).toEqual({
      orderId: ORDER_ID,
      partnerId: funded().partnerId,
      payoutDestinationId: funded().payoutAccountId,
      amountKes: '1273.60',
      instructionId: ORDER_ID,
    });
    expect(again).toEqual(first);
    expect(claimDueSellProceeds).toHaveBeenCalledWith({}, 50, 30_000);
    await expect(useCase.execute({ limit: 101 })).rejects.toMatchObject({ fields: ['limit'] });
  });
});
