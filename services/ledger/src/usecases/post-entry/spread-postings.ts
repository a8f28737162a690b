import { spreadPostings } from '../../domain/service-account-shards';
import type { AccountsRepository } from '../../persistence/accounts.repository';
import type { RawPosting } from './postings';

/** Caller postings with their hot service-account legs moved to a shard (domain/service-account-shards.ts). */
export class PostingSpreader {
  constructor(private readonly accounts: Pick<AccountsRepository, 'serviceAccountsById'>) {}

  /** `key`: what picks the shard, the partner's account (or the entry) the postings belong to. */
  async spread(postings: RawPosting[], key: string): Promise<RawPosting[]> {
    return spreadPostings(postings, key, await this.accounts.serviceAccountsById());
  }
}
