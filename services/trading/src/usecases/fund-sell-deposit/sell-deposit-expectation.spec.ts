// Proves what trading sends the ledger for a deposit-mode sell order's expectation (its id, partner,
// sendBefore and hash when attached) and what it reads back (a deposit counts only once claimed for this
// very order), and when the scheduler asks again: every pollMs with a hash, at sendBefore without one,
// and every pollMs once sendBefore has passed until the ledger closes the expectation.
import type { ledger } from '@platform/proto';
import { expectSellDeposit, nextDepositCheck } from './sell-deposit-expectation';

const NOW = new Date('2026-01-01T12:00:00.000Z');
const ORDER = {
  orderId: '2b0c7a51-0f7e-4b8e-9d6a-3c1f0e9a7b21',
  partnerId: '9a7d2c1e-4b3f-4e6a-8c5d-1f2e3d4c5b6a',
  sendBefore: new Date('2026-01-01T12:30:00.000Z'),
  txHash: null as string | null,
};
const HASH = 'ab'.repeat(32);

function ledgerAnswering(answer: Partial<ledger.UsdtDepositExpectation>) {
  const expectUsdtDeposit = jest.fn(async (request: ledger.ExpectUsdtDepositRequest) => ({
    partnerId: request.partnerId,
    orderId: request.orderId,
    sendBefore: request.sendBefore,
    txHash: request.txHash,
    open: true,
    ...answer,
  }));
  return { expectUsdtDeposit };
}

function deposit(orderId: string | undefined, status = 'claimed'): ledger.UsdtDeposit {
  return {
    depositId: 'd-1',
    txHash: HASH,
    partnerId: ORDER.partnerId,
    usdtAmount: '10.500000',
    status,
    orderId,
    receivedAt: NOW.toISOString(),
  };
}

describe('expectSellDeposit', () => {
  it('registers the order, with its hash once attached, and answers no deposit while none is claimed', async () => {
    const ledger = ledgerAnswering({});
    expect(await expectSellDeposit(ledger, ORDER)).toEqual({ open: true, depositUsdtAmount: null });
    await expectSellDeposit(ledger, { ...ORDER, txHash: HASH });
    expect(ledger.expectUsdtDeposit.mock.calls.map(([request]) => request)).toEqual([
      {
        partnerId: ORDER.partnerId,
        orderId: ORDER.orderId,
        sendBefore: '2026-01-01T12:30:00.000Z',
        txHash: undefined,
      },
      { partnerId: ORDER.partnerId, orderId: ORDER.orderId, sendBefore: '2026-01-01T12:30:00.000Z', txHash: HASH },
    ]);
  });

  it('takes a deposit only when the ledger claimed it for this order', async () => {
    const claimed = ledgerAnswering({ deposit: deposit(ORDER.orderId) });
    expect(await expectSellDeposit(claimed, ORDER)).toEqual({ open: true, depositUsdtAmount: '10.500000' });
    const other = ledgerAnswering({ deposit: deposit('another-order') });
    expect(await expectSellDeposit(other, ORDER)).toEqual({ open: true, depositUsdtAmount: null });
    const held = ledgerAnswering({ deposit: deposit(undefined, 'held_for_attribution') });
    expect(await expectSellDeposit(held, ORDER)).toEqual({ open: true, depositUsdtAmount: null });
    const closed = ledgerAnswering({ open: false });
    expect(await expectSellDeposit(closed, ORDER)).toEqual({ open: false, depositUsdtAmount: null });
  });

  it('refuses an order without sendBefore (not a deposit-mode sell) before calling the ledger', async () => {
    const ledger = ledgerAnswering({});
    await expect(expectSellDeposit(ledger, { ...ORDER, sendBefore: null })).rejects.toThrow('without sendBefore');
    expect(ledger.expectUsdtDeposit).not.toHaveBeenCalled();
  });
});

describe('nextDepositCheck', () => {
  const POLL_MS = 1_000;

  it('waits for sendBefore while no hash is attached', () => {
    expect(nextDepositCheck(NOW, ORDER, POLL_MS)).toEqual(ORDER.sendBefore);
  });

  it('asks every pollMs with a hash, never later than sendBefore', () => {
    expect(nextDepositCheck(NOW, { ...ORDER, txHash: HASH }, POLL_MS)).toEqual(new Date('2026-01-01T12:00:01.000Z'));
    const almost = new Date('2026-01-01T12:29:59.500Z');
    expect(nextDepositCheck(almost, { ...ORDER, txHash: HASH }, POLL_MS)).toEqual(ORDER.sendBefore);
  });

  it('asks every pollMs once sendBefore has passed, hash or not', () => {
    const after = new Date('2026-01-01T12:30:00.000Z');
    expect(nextDepositCheck(after, ORDER, POLL_MS)).toEqual(new Date('2026-01-01T12:30:01.000Z'));
    expect(nextDepositCheck(after, { ...ORDER, txHash: HASH }, POLL_MS)).toEqual(new Date('2026-01-01T12:30:01.000Z'));
  });
});
