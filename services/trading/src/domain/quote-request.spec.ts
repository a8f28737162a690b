// Proves the quote request's shape rules: a side,
// exactly one amount, strictly positive, at no more than its currency's scale,
// no sign or exponent; each refusal names its fields.
import { AppError } from '@platform/errors';
import { parseQuoteRequest, QuoteRequestInput } from './quote-request';

const partnerId = '6f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11';

function message(input: QuoteRequestInput): string {
  try {
    parseQuoteRequest(input);
  } catch (error) {
    return (error as AppError).partnerMessage;
  }
  return 'accepted';
}

describe('parseQuoteRequest', () => {
  it('accepts a KES amount and a USDT amount', () => {
    const byKes = parseQuoteRequest({ partnerId, side: 'buy', kesAmount: '1000.00' });
    expect(byKes.given.currency).toBe('KES');
    expect(byKes.given.amount.toString()).toBe('1000');
    const byUsdt = parseQuoteRequest({ partnerId, side: 'sell', usdtAmount: '10.123456' });
    expect(byUsdt.given.currency).toBe('USDT');
    expect(byUsdt.side).toBe('sell');
  });

  it.each([
    [{ side: 'buy', kesAmount: '1.00', usdtAmount: '1.000000' }, 'kesAmount, usdtAmount'],
    [{ side: 'buy' }, 'kesAmount, usdtAmount'],
    [{ side: 'buy', kesAmount: '1.001' }, 'kesAmount'],
    [{ side: 'buy', usdtAmount: '1.1234567' }, 'usdtAmount'],
    [{ side: 'buy', kesAmount: '1e3' }, 'kesAmount'],
    [{ side: 'buy', kesAmount: '-1.00' }, 'kesAmount'],
    [{ side: 'buy', kesAmount: '0.00' }, 'kesAmount'],
    [{ side: 'sell', usdtAmount: '0' }, 'usdtAmount'],
    [{ side: 'buy', kesAmount: '' }, 'kesAmount'],
    [{ side: 'buy', kesAmount: ' 1.00' }, 'kesAmount'],
    [{ side: 'hold', kesAmount: '1.00' }, 'side'],
    [{ side: '', usdtAmount: 'x' }, 'side, usdtAmount'],
  ])('refuses %p naming %s', (input, fields) => {
    expect(message({ partnerId, ...input })).toBe(`Validation failed on: ${fields}`);
  });

  it('refuses a partner id that is not a UUID', () => {
    expect(message({ partnerId: 'x', side: 'buy', kesAmount: '1.00' })).toBe('Validation failed on: partnerId');
  });
});
