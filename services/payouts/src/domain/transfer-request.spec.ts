// Proves the transfer request rules: rails and their destination formats
// (Kenyan MSISDN normalised on mobile money, bankCode required exactly on
// bank rails), strict KES amounts, the idempotency key and reference, every
// offending field named at once, and a request hash that ignores spelling
// (phone format, trailing zeros) but not content.
import { AppError } from '@platform/errors';
import { parseTransferRequest, transferRequestHash, TransferRequestInput } from './transfer-request';

const valid: TransferRequestInput = {
  rail: 'mobile_money',
  accountNumber: '254712345678',
  accountName: 'Jane Wanjiru',
  amountCurrency: 'KES',
  amountValue: '100.00',
  idempotencyKey: 'key-1',
};

function fieldsOf(input: TransferRequestInput): string[] {
  try {
    parseTransferRequest(input);
  } catch (error) {
    return (error as AppError).fields ?? [];
  }
  return [];
}

describe('transfer request', () => {
  it.each([
    ['0712345678', '254712345678'],
    ['+254712345678', '254712345678'],
    ['254112345678', '254112345678'],
  ])('normalises the mobile-money number %s', (input, expected) => {
    expect(parseTransferRequest({ ...valid, accountNumber: input }).accountNumber).toBe(expected);
  });

  it.each(['0712 345-678', '071234567', '254812345678', '+14155550100'])(
    'refuses the mobile-money number %s',
    (input) => {
      expect(fieldsOf({ ...valid, accountNumber: input })).toContain('destination.accountNumber');
    },
  );

  it('accepts a mobile-money and a bank-rail transfer, defaulting partnerReference to the key', () => {
    expect(parseTransferRequest({ ...valid, accountNumber: '0712345678' })).toMatchObject({
      accountNumber: '254712345678',
      bankCode: null,
      partnerReference: 'key-1',
    });
    expect(parseTransferRequest({ ...valid, rail: 'rtgs', accountNumber: '0123456789', bankCode: '01' })).toMatchObject(
      { rail: 'rtgs', bankCode: '01' },
    );
  });

  it('names every offending field', () => {
    expect(fieldsOf({ ...valid, rail: 'swift' })).toEqual(['rail']);
    expect(fieldsOf({ ...valid, bankCode: '01' })).toEqual(['destination.bankCode']);
    expect(fieldsOf({ ...valid, rail: 'eft', accountNumber: 'abc' })).toEqual([
      'destination.accountNumber',
      'destination.bankCode',
    ]);
    expect(
      fieldsOf({
        ...valid,
        accountName: ' ',
        amountCurrency: 'USD',
        amountValue: '1.001',
        idempotencyKey: 'a b',
        partnerReference: '',
      }),
    ).toEqual(['destination.accountName', 'amount.currency', 'amount.value', 'idempotencyKey', 'partnerReference']);
    expect(fieldsOf({ ...valid, amountValue: '0.00' })).toEqual(['amount.value']);
  });

  it('hashes the content, not its spelling', () => {
    const hash = transferRequestHash(parseTransferRequest(valid));
    expect(
      transferRequestHash(parseTransferRequest({ ...valid, accountNumber: '0712345678', amountValue: '100' })),
    ).toBe(hash);
    expect(transferRequestHash(parseTransferRequest({ ...valid, amountValue: '100.01' }))).not.toBe(hash);
    expect(transferRequestHash(parseTransferRequest({ ...valid, partnerReference: 'other' }))).not.toBe(hash);
  });
});
