// Proves the deposit offer validates its input before asking the matcher, and passes the matcher's decision through.
import { OfferUsdtDepositUseCase } from './offer-usdt-deposit.usecase';

const offer = { partnerId: '6f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11', txHash: 'ab'.repeat(32), usdtAmount: '10.500000' };

describe('offer USDT deposit', () => {
  it("answers the matcher's decision", async () => {
    const matcher = { matchDeposit: jest.fn().mockResolvedValue({ decision: 'none' }) };
    await expect(new OfferUsdtDepositUseCase(matcher).execute(offer)).resolves.toEqual({ decision: 'none' });
    expect(matcher.matchDeposit).toHaveBeenCalledWith(offer);
  });

  it('refuses malformed offers naming the fields, without asking the matcher', async () => {
    const matcher = { matchDeposit: jest.fn() };
    await expect(new OfferUsdtDepositUseCase(matcher).execute({ partnerId: 'x', txHash: 'AB'.repeat(32), usdtAmount: '0' }))
      .rejects.toMatchObject({ code: 'VALIDATION_FAILED', fields: ['partnerId', 'txHash', 'usdtAmount'] });
    expect(matcher.matchDeposit).not.toHaveBeenCalled();
  });
});
