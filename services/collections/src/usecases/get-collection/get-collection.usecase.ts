/** One collection of the calling partner; unknown, malformed or another partner's is COLLECTION_NOT_FOUND. */
import { AppError } from '@platform/errors';
import { isUuid } from '@platform/ids';
import type { DataSource } from '@platform/persistence';
import type { CollectionRecord } from '../../domain/collection';
import type { CollectionsRepository } from '../../persistence/collections.repository';

export class GetCollectionUseCase {
  constructor(private readonly deps: { dataSource: DataSource; collections: CollectionsRepository }) {}

  async execute(query: { partnerId: string; collectionId: string }): Promise<CollectionRecord> {
    if (!isUuid(query.collectionId) || !isUuid(query.partnerId)) throw new AppError('COLLECTION_NOT_FOUND');
    const collection = await this.deps.collections.findForPartner(
      this.deps.dataSource.manager,
      query.partnerId,
      query.collectionId,
    );
    if (!collection) throw new AppError('COLLECTION_NOT_FOUND');
    return collection;
  }
}
