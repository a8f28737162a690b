/**
 * Sandbox clock: ends one open collection's lifetime now and runs the expiry step, answering the collection
 * as it then stands. The partner's own collection only: another's (or an unknown one) is COLLECTION_NOT_FOUND
 * before anything changes.
 */
import type { CollectionRecord } from '../../domain/collection';
import type { ExpireCollectionsUseCase } from '../expire-collections/expire-collections.usecase';
import type { GetCollectionUseCase } from '../get-collection/get-collection.usecase';

export class ExpireCollectionNowUseCase {
  constructor(
    private readonly deps: {
      getCollection: Pick<GetCollectionUseCase, 'execute'>;
      expireCollections: Pick<ExpireCollectionsUseCase, 'execute' | 'endLifetimeNow'>;
    },
  ) {}

  async execute(query: { partnerId: string; collectionId: string }): Promise<CollectionRecord> {
    await this.deps.getCollection.execute(query);
    await this.deps.expireCollections.endLifetimeNow(query.collectionId);
    await this.deps.expireCollections.execute();
    return this.deps.getCollection.execute(query);
  }
}
