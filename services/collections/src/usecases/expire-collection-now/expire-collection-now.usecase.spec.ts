// Proves the sandbox clock checks the partner's claim to the collection before it changes anything, then ends
// the lifetime, runs the expiry step and answers the collection read afresh; with fakes that record the calls.
import { AppError } from '@platform/errors';
import type { CollectionRecord } from '../../domain/collection';
import { ExpireCollectionNowUseCase } from './expire-collection-now.usecase';

const QUERY = { partnerId: 'partner-1', collectionId: 'collection-1' };

function stand(found: boolean) {
  const calls: string[] = [];
  let reads = 0;
  const useCase = new ExpireCollectionNowUseCase({
    getCollection: {
      execute: async (query) => {
        calls.push(`get ${query.partnerId} ${query.collectionId}`);
        if (!found) throw new AppError('COLLECTION_NOT_FOUND');
        reads += 1;
        return { id: query.collectionId, status: reads === 1 ? 'open' : 'expired' } as CollectionRecord;
      },
    },
    expireCollections: {
      endLifetimeNow: async (collectionId) => {
        calls.push(`end ${collectionId}`);
      },
      execute: async () => {
        calls.push('expire');
        return 1;
      },
    },
  });
  return { useCase, calls };
}

it("ends the lifetime of the partner's own collection, runs the expiry step and answers the collection then", async () => {
  const { useCase, calls } = stand(true);
  expect((await useCase.execute(QUERY)).status).toBe('expired');
  expect(calls).toEqual(['get partner-1 collection-1', 'end collection-1', 'expire', 'get partner-1 collection-1']);
});

it("changes nothing for a collection that is not the partner's", async () => {
  const { useCase, calls } = stand(false);
  await expect(useCase.execute(QUERY)).rejects.toThrow('COLLECTION_NOT_FOUND');
  expect(calls).toEqual(['get partner-1 collection-1']);
});
