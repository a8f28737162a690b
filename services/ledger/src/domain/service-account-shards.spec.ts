// Proves postings to a sharded service account go to one shard per key, credits and debits
// alike where the account may go negative, and that debits of an account with a floor stay on
// its base (a shard holds only part of the balance).
import { shardIndex, ShardedAccount, spreadPostings } from './service-account-shards';

const treasury: ShardedAccount = { allowNegative: true, shardIds: ['t0', 't1', 't2', 't3'] };
const feeRevenue: ShardedAccount = { allowNegative: false, shardIds: ['f0', 'f1', 'f2', 'f3'] };
const accounts = new Map([
  ['t0', treasury],
  ['f0', feeRevenue],
  ['plain', { allowNegative: true, shardIds: ['plain'] }],
]);

describe('spreadPostings', () => {
  it('moves each sharded leg to the shard the key picks, the same for every call', () => {
    const postings = [
      { accountId: 'partner', amount: '-100.50' },
      { accountId: 't0', amount: '100.00' },
      { accountId: 'f0', amount: '0.50' },
    ];
    const key = 'partner-account-1';
    const index = shardIndex(key, 4);
    expect(spreadPostings(postings, key, accounts)).toEqual([
      { accountId: 'partner', amount: '-100.50' },
      { accountId: `t${index}`, amount: '100.00' },
      { accountId: `f${index}`, amount: '0.50' },
    ]);
    expect(spreadPostings(postings, key, accounts)).toEqual(spreadPostings(postings, key, accounts));
  });

  it('moves debits of an account that may go negative, and keeps debits of one with a floor on its base', () => {
    const key = [...Array(50).keys()].map((n) => `key-${n}`).find((candidate) => shardIndex(candidate, 4) !== 0)!;
    expect(
      spreadPostings(
        [
          { accountId: 't0', amount: '-5.00' },
          { accountId: 'f0', amount: '-5.00' },
          { accountId: 'plain', amount: '10.00' },
        ],
        key,
        accounts,
      ).map((posting) => posting.accountId),
    ).toEqual([`t${shardIndex(key, 4)}`, 'f0', 'plain']);
  });

  it('spreads keys over every shard', () => {
    const used = new Set([...Array(200).keys()].map((n) => shardIndex(`partner-${n}`, 8)));
    expect(used.size).toBe(8);
  });
});
