/** One collection of the calling partner; unknown, malformed or another partner's is COLLECTION_NOT_FOUND. */
import { AppError } from '@platform/errors';
import type { DataSource } from '@platform/persistence';
import type { CollectionRecord } from '../../domain/collection';
import type { CollectionsRepository } from '../../persistence/collections.repository';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export class GetCollectionUseCase {
  constructor(private readonly deps: { dataSource: DataSource; collections: CollectionsRepository }) {}

  async execute(query: { partnerId: string; collectionId: string }): Promise<CollectionRecord> {
    if (!UUID.test(query.collectionId) || !UUID.test(query.partnerId)) throw new AppError('COLLECTION_NOT_FOUND');
    const collection = await this.deps.collections.findForPartner(
      this.deps.dataSource.manager,
      query.partnerId,
      query.collectionId,
    );
    if (!collection) throw new AppError('COLLECTION_NOT_FOUND');
    return collection;
  }
}
