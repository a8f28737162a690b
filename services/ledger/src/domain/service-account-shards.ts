/**
 * Which shard of a hot service account (treasury, fee revenue) a posting goes to. An entry
 * locks every account it posts to until it commits, so one treasury row would make the
 * settlements of all partners queue on it; its shards (the base and its `shard_of` rows)
 * spread them. The shard is chosen by a key (the partner's account): one partner's entries
 * already queue on that partner's own row, so they gain nothing from spreading, and
 * different partners land on different shards. A posting that debits an account with a
 * floor (fee revenue) stays on the base: a shard holds only part of the balance, and the
 * floor holds for each row.
 */
export interface ShardedAccount {
  allowNegative: boolean;
  /** The base first, then its shards. */
  shardIds: string[];
}

/** FNV-1a (32 bits) of the key, modulo `count`: stable across processes and releases. */
export function shardIndex(key: string, count: number): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < key.length; index += 1) {
    hash ^= key.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % count;
}

/** The postings with each leg on a sharded account moved to the shard `key` picks (see the header). */
export function spreadPostings<Raw extends { accountId: string; amount: string }>(
  postings: Raw[],
  key: string,
  accounts: ReadonlyMap<string, ShardedAccount>,
): Raw[] {
  return postings.map((posting) => {
    const account = accounts.get(posting.accountId);
    if (!account || account.shardIds.length < 2) return posting;
    const debit = posting.amount.trim().startsWith('-');
    if (debit && !account.allowNegative) return posting;
    return { ...posting, accountId: account.shardIds[shardIndex(key, account.shardIds.length)] };
  });
}
