// Proves that only balanced entries at each currency's scale can be written,
// and that a partner account's floor holds while credits always apply.
import { Big } from '@platform/money';
import { applyPosting, assertBalanced, EntryDraft, LedgerInvariantError } from './journal';

const draft = (postings: EntryDraft['postings']): EntryDraft => ({
  entryId: 'e',
  kind: 'test',
  partnerId: null,
  postings,
  metadata: {},
});

describe('assertBalanced', () => {
  it('accepts postings that sum to zero per currency', () => {
    expect(() =>
      assertBalanced(
        draft([
          { accountId: 'a', currency: 'KES', amount: new Big('100.50') },
          { accountId: 'b', currency: 'KES', amount: new Big('-100.50') },
          { accountId: 'c', currency: 'USDT', amount: new Big('1.000001') },
          { accountId: 'd', currency: 'USDT', amount: new Big('-1.000001') },
        ]),
      ),
    ).not.toThrow();
  });

  it.each([
    [
      'unbalanced',
      [
        { accountId: 'a', currency: 'KES', amount: new Big('1') },
        { accountId: 'b', currency: 'KES', amount: new Big('-0.99') },
      ],
    ],
    [
      'balanced only across currencies',
      [
        { accountId: 'a', currency: 'KES', amount: new Big('1') },
        { accountId: 'b', currency: 'USD', amount: new Big('-1') },
      ],
    ],
    [
      'beyond scale',
      [
        { accountId: 'a', currency: 'KES', amount: new Big('1.001') },
        { accountId: 'b', currency: 'KES', amount: new Big('-1.001') },
      ],
    ],
    [
      'zero posting',
      [
        { accountId: 'a', currency: 'KES', amount: new Big('0') },
        { accountId: 'b', currency: 'KES', amount: new Big('0') },
      ],
    ],
    ['single posting', [{ accountId: 'a', currency: 'KES', amount: new Big('0') }]],
    [
      'same account twice',
      [
        { accountId: 'a', currency: 'KES', amount: new Big('1') },
        { accountId: 'a', currency: 'KES', amount: new Big('-1') },
      ],
    ],
  ] as const)('refuses an entry that is %s', (_, postings) => {
    expect(() => assertBalanced(draft(postings as never))).toThrow(LedgerInvariantError);
  });
});

describe('applyPosting', () => {
  it('refuses a debit below a partner account floor, counting holds', () => {
    expect(applyPosting(new Big('100'), new Big('30'), new Big('-70'), false)?.toString()).toBe('30');
    expect(applyPosting(new Big('100'), new Big('30'), new Big('-70.01'), false)).toBeNull();
  });

  it('lets service accounts go negative and always applies credits', () => {
    expect(applyPosting(new Big('0'), new Big('0'), new Big('-5'), true)?.toString()).toBe('-5');
    expect(applyPosting(new Big('-5'), new Big('0'), new Big('1'), false)?.toString()).toBe('-4');
  });
});
