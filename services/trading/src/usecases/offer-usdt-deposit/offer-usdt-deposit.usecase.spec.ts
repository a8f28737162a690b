// Proves the deposit offer validates its input and, with no sell orders in trading yet, answers "none".
import { OfferUsdtDepositUseCase } from './offer-usdt-deposit.usecase';

const offer = { partnerId: '6f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11', txHash: 'ab'.repeat(32), usdtAmount: '10.500000' };

describe('offer USDT deposit', () => {
  it('answers none while no sell order can take a deposit', async () => {
    await expect(new OfferUsdtDepositUseCase().execute(offer)).resolves.toEqual({ decision: 'none' });
  });

  it('refuses malformed offers naming the fields', async () => {
    await expect(new OfferUsdtDepositUseCase().execute({ partnerId: 'x', txHash: 'AB'.repeat(32), usdtAmount: '0' }))
      .rejects.toMatchObject({ code: 'VALIDATION_FAILED', fields: ['partnerId', 'txHash', 'usdtAmount'] });
  });
});
