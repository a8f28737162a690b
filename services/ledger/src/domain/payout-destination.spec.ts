// Proves each payout rail's rules (mobile number form, bank account digits, bank code only on bank rails) and the mask.
import { maskAccountNumber, payoutDestinationProblems } from './payout-destination';

describe('payout destinations', () => {
  it('accepts a mobile-money number without a bank code and a bank account with one', () => {
    expect(
      payoutDestinationProblems({
        rail: 'mobile_money',
        accountName: 'Jane W',
        accountNumber: '254712345678',
        bankCode: null,
      }),
    ).toEqual([]);
    expect(
      payoutDestinationProblems({
        rail: 'pesalink',
        accountName: 'Acme Ltd',
        accountNumber: '0123456789',
        bankCode: '01',
      }),
    ).toEqual([]);
  });

  it('names every field its rail refuses', () => {
    expect(
      payoutDestinationProblems({
        rail: 'mobile_money',
        accountName: ' ',
        accountNumber: '0712345678',
        bankCode: '01',
      }),
    ).toEqual(['accountName', 'accountNumber', 'bankCode']);
    expect(
      payoutDestinationProblems({ rail: 'rtgs', accountName: 'A', accountNumber: '12ab', bankCode: null }),
    ).toEqual(['accountNumber', 'bankCode']);
    expect(
      payoutDestinationProblems({ rail: 'swift', accountName: 'A', accountNumber: '123456', bankCode: '01' }),
    ).toEqual(['rail']);
  });

  it('masks all but the last four digits', () => {
    expect(maskAccountNumber('0123456789')).toBe('****6789');
  });
});
