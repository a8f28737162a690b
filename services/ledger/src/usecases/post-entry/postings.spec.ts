// Proves caller postings are parsed exactly: signed amounts at scale, shape limits, per-currency balance.
import { Big } from '@platform/money';
import { balances, parseSignedAmount, postingsShapeValid, validMetadata } from './postings';

const A = '00000000-0000-4000-8000-000000000001';
const B = '00000000-0000-4000-8000-000000000002';

describe('postings', () => {
  it('parses signed amounts and refuses zero, exponents and excess scale', () => {
    expect(parseSignedAmount('-12.50', 2)?.toString()).toBe('-12.5');
    expect(parseSignedAmount('3', 2)?.toString()).toBe('3');
    expect(parseSignedAmount('0.00', 2)).toBeNull();
    expect(parseSignedAmount('1e3', 2)).toBeNull();
    expect(parseSignedAmount('1.001', 2)).toBeNull();
    expect(parseSignedAmount('--1', 2)).toBeNull();
  });

  it('checks shape: count, ids, one posting per account', () => {
    expect(
      postingsShapeValid(
        [
          { accountId: A, amount: '1' },
          { accountId: B, amount: '-1' },
        ],
        2,
      ),
    ).toBe(true);
    expect(
      postingsShapeValid(
        [
          { accountId: A, amount: '1' },
          { accountId: A, amount: '-1' },
        ],
        2,
      ),
    ).toBe(false);
    expect(postingsShapeValid([{ accountId: A, amount: '1' }], 2)).toBe(false);
    expect(
      postingsShapeValid(
        [
          { accountId: 'nope', amount: '1' },
          { accountId: B, amount: '-1' },
        ],
        2,
      ),
    ).toBe(false);
  });

  it('balances per currency', () => {
    expect(
      balances([
        { accountId: A, currency: 'KES', amount: new Big('10') },
        { accountId: B, currency: 'KES', amount: new Big('-10') },
      ]),
    ).toBe(true);
    expect(
      balances([
        { accountId: A, currency: 'KES', amount: new Big('10') },
        { accountId: B, currency: 'USDT', amount: new Big('-10') },
      ]),
    ).toBe(false);
  });

  it('bounds metadata', () => {
    expect(validMetadata({ orderId: 'x' })).toBe(true);
    expect(validMetadata({ 'bad key': 'x' })).toBe(false);
    expect(validMetadata({ k: 'x'.repeat(257) })).toBe(false);
  });
});
