// Proves the scheduler's step for a deposit-mode sell order awaiting USDT, with fakes at the edges: it
// asks the ledger (never being asked by it); a deposit claimed for the order funds it; while the ledger
// still takes a deposit the order is asked about again (every pollMs with a hash, at sendBefore
// without), even past sendBefore on this clock; only once the ledger closes the expectation does the
// order expire, with order.expired and its cap given back; a ledger that does not answer expires nothing.
import type { Logger } from '@platform/logger';
import type { OrderRecord } from '../../domain/order';
import { AdvanceSellOrderUseCase } from './advance-sell-order.usecase';

const NOW = new Date('2026-01-01T12:00:00.000Z');
const SEND_BEFORE = new Date('2026-01-01T12:30:00.000Z');
const POLL_MS = 1_000;

function awaiting(changes: Partial<OrderRecord> = {}): OrderRecord {
  return {
    orderId: '2b0c7a51-0f7e-4b8e-9d6a-3c1f0e9a7b21',
    partnerId: '9a7d2c1e-4b3f-4e6a-8c5d-1f2e3d4c5b6a',
    side: 'sell',
    fundingMode: 'deposit',
    status: 'awaiting_usdt',
    usdtAmount: '10.000000',
    sendBefore: SEND_BEFORE,
    txHash: null,
    ...changes,
  } as OrderRecord;
}

function setUp(
  answer: () => Promise<{ open: boolean; deposit?: { status: string; orderId?: string; usdtAmount: string } }>,
  now = NOW,
) {
  const expectUsdtDeposit = jest.fn(async (request: { orderId: string }) => {
    const { open, deposit } = await answer();
    return { partnerId: '', orderId: request.orderId, sendBefore: '', open, deposit: deposit as never };
  });
  const record = jest.fn(async () => null);
  const fundSellDeposit = { execute: jest.fn(async (order: OrderRecord) => order) };
  const useCase = new AdvanceSellOrderUseCase({
    ledger: { postEntry: jest.fn(), expectUsdtDeposit },
    serviceAccounts: {} as never,
    accountIds: {} as never,
    transitions: { record } as never,
    balanceFunding: { collect: jest.fn() },
    fundSellDeposit,
    clock: { now: () => now },
    logger: { warn: jest.fn() } as unknown as Logger,
    depositPollMs: POLL_MS,
  });
  return { useCase, expectUsdtDeposit, record, fundSellDeposit };
}

describe('AdvanceSellOrderUseCase, an order awaiting USDT', () => {
  it('funds the order with the deposit the ledger claimed for it', async () => {
    const order = awaiting({ txHash: 'ab'.repeat(32) });
    const { useCase, record, fundSellDeposit } = setUp(async () => ({
      open: true,
      deposit: { status: 'claimed', orderId: order.orderId, usdtAmount: '10.000000' },
    }));
    await useCase.execute(order);
    expect(fundSellDeposit.execute).toHaveBeenCalledWith(order, '10.000000');
    expect(record).not.toHaveBeenCalled();
  });

  it('asks again in pollMs with a hash, at sendBefore without one', async () => {
    const { useCase, record } = setUp(async () => ({ open: true }));
    await useCase.execute(awaiting({ txHash: 'ab'.repeat(32) }));
    await useCase.execute(awaiting());
    expect(record.mock.calls.map(([, transition]) => transition)).toEqual([
      { from: 'awaiting_usdt', changes: { nextActionAt: new Date(NOW.getTime() + POLL_MS) } },
      { from: 'awaiting_usdt', changes: { nextActionAt: SEND_BEFORE } },
    ]);
  });

  it('does not expire past sendBefore on its own clock while the ledger still takes a deposit', async () => {
    const late = new Date(SEND_BEFORE.getTime() + 10);
    const { useCase, record } = setUp(async () => ({ open: true }), late);
    await useCase.execute(awaiting());
    expect(record).toHaveBeenCalledWith(expect.anything(), {
      from: 'awaiting_usdt',
      changes: { nextActionAt: new Date(late.getTime() + POLL_MS) },
    });
  });

  it('expires the order once the ledger closed its expectation without a deposit', async () => {
    const { useCase, record, fundSellDeposit } = setUp(async () => ({ open: false }));
    await useCase.execute(awaiting());
    expect(fundSellDeposit.execute).not.toHaveBeenCalled();
    expect(record).toHaveBeenCalledWith(expect.anything(), {
      from: 'awaiting_usdt',
      changes: { status: 'expired', nextActionAt: null, completedAt: NOW },
      event: 'order.expired',
      releaseCap: true,
    });
  });

  it('expires nothing when the ledger does not answer (the step is retaken after its lease)', async () => {
    const { useCase, record } = setUp(async () => {
      throw new Error('UNAVAILABLE');
    });
    await expect(useCase.execute(awaiting())).rejects.toThrow('UNAVAILABLE');
    expect(record).not.toHaveBeenCalled();
  });
});
