import type { AsyncImplementation } from '@platform/grpc';
import { collections } from '@platform/proto';
import type { UsdRails } from '../adapters/usd-rails.adapter';
import type { CreateCollectionUseCase } from '../usecases/create-collection/create-collection.usecase';
import type { GetCollectionUseCase } from '../usecases/get-collection/get-collection.usecase';
import type { ListCollectionsUseCase } from '../usecases/list-collections/list-collections.usecase';
import { toProtoCollection } from './presenters';

/** Translates gRPC messages to commands; no decisions here. */
export function collectionsHandlers(deps: {
  createCollection: CreateCollectionUseCase;
  getCollection: GetCollectionUseCase;
  listCollections: ListCollectionsUseCase;
  rails: UsdRails;
}): AsyncImplementation<typeof collections.CollectionsService> {
  return {
    async createCollection(request) {
      const result = await deps.createCollection.execute({
        partnerId: request.partnerId,
        currency: 'USD',
        partnerReference: request.partnerReference,
        payerLabel: request.payerLabel,
        expectedAmount: request.expectedAmount ?? null,
      });
      return { collection: toProtoCollection(result.collection, deps.rails), created: result.created };
    },
    async getCollection(request) {
      return toProtoCollection(await deps.getCollection.execute(request), deps.rails);
    },
    async listCollections(request) {
      const result = await deps.listCollections.execute(request);
      return {
        collections: result.collections.map((record) => toProtoCollection(record, deps.rails)),
        nextCursor: result.nextCursor,
      };
    },
  };
}
