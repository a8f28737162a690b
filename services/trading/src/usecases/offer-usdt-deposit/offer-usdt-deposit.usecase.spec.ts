// Proves the deposit offer validates its input before reading anything, matches an awaiting order by its hash
// (funding it), answers a repeated offer the same, and otherwise holds for open orders or says none.
import type { OrderRecord } from '../../domain/order';
import { OfferUsdtDepositUseCase } from './offer-usdt-deposit.usecase';

const offer = { partnerId: '6f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11', txHash: 'ab'.repeat(32), usdtAmount: '10.500000' };
const sellOrder = (changes: Partial<OrderRecord>) =>
  ({ orderId: 'o-1', side: 'sell', status: 'awaiting_usdt', depositUsdtAmount: null, ...changes }) as OrderRecord;

function useCase(found: OrderRecord | null, holdUntil: Date | null = null) {
  const orders = {
    findByTxHash: jest.fn().mockResolvedValue(found),
    latestOpenSendBefore: jest.fn().mockResolvedValue(holdUntil),
  };
  const fundSellDeposit = { execute: jest.fn().mockImplementation(async (order: OrderRecord) => order) };
  return { orders, fundSellDeposit, offerUseCase: new OfferUsdtDepositUseCase({ orders, fundSellDeposit }) };
}

describe('offer USDT deposit', () => {
  it('matches an awaiting sell order by its hash and funds it with the deposit', async () => {
    const { fundSellDeposit, offerUseCase } = useCase(sellOrder({}));
    await expect(offerUseCase.execute(offer)).resolves.toEqual({ decision: 'matched', orderId: 'o-1' });
    expect(fundSellDeposit.execute).toHaveBeenCalledWith(expect.objectContaining({ orderId: 'o-1' }), '10.500000');
  });

  it('answers a repeated offer of the deposit an order already took the same, without funding it twice', async () => {
    const { fundSellDeposit, offerUseCase } = useCase(
      sellOrder({ status: 'funds_reserved', depositUsdtAmount: '10.5' }),
    );
    await expect(offerUseCase.execute(offer)).resolves.toEqual({ decision: 'matched', orderId: 'o-1' });
    expect(fundSellDeposit.execute).not.toHaveBeenCalled();
  });

  it('holds until the latest open sendBefore, or answers none', async () => {
    const until = new Date('2026-01-01T00:00:00.000Z');
    await expect(useCase(null, until).offerUseCase.execute(offer)).resolves.toEqual({
      decision: 'hold',
      holdUntil: until.toISOString(),
    });
    await expect(useCase(null).offerUseCase.execute(offer)).resolves.toEqual({ decision: 'none' });
  });

  it('refuses malformed offers naming the fields, without reading anything', async () => {
    const { orders, offerUseCase } = useCase(null);
    await expect(
      offerUseCase.execute({ partnerId: 'x', txHash: 'AB'.repeat(32), usdtAmount: '0' }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED', fields: ['partnerId', 'txHash', 'usdtAmount'] });
    expect(orders.findByTxHash).not.toHaveBeenCalled();
  });
});
