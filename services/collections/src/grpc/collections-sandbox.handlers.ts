import { AppError } from '@platform/errors';
import type { AsyncImplementation } from '@platform/grpc';
import { collections } from '@platform/proto';
import type { UsdRails } from '../adapters/usd-rails.adapter';
import type { CreditCollectionsUseCase } from '../usecases/credit-collections/credit-collections.usecase';
import type { ExpireCollectionsUseCase } from '../usecases/expire-collections/expire-collections.usecase';
import type { GetCollectionUseCase } from '../usecases/get-collection/get-collection.usecase';
import type { RecordDepositUseCase } from '../usecases/record-deposit/record-deposit.usecase';
import { toProtoCollection, toProtoDeposit } from './presenters';

export interface SandboxUseCases {
  recordDeposit: RecordDepositUseCase;
  creditCollections: CreditCollectionsUseCase;
  expireCollections: ExpireCollectionsUseCase;
  getCollection: GetCollectionUseCase;
}

/**
 * Translates gRPC messages to commands; no decisions here. Outside sandbox
 * mode there are no use cases and every call answers NOT_FOUND, as an absent
 * route would. After a deposit the credit step is run at once for that
 * collection (the scheduler would run it within a tick anyway), so the answer
 * usually shows it credited.
 */
export function collectionsSandboxHandlers(deps: {
  sandbox: SandboxUseCases | null;
  rails: UsdRails;
}): AsyncImplementation<typeof collections.CollectionsSandboxService> {
  return {
    async simulateDeposit(request) {
      if (!deps.sandbox) throw new AppError('NOT_FOUND');
      const result = await deps.sandbox.recordDeposit.execute({
        partnerId: request.partnerId,
        collectionId: request.collectionId,
        depositId: request.depositId,
        amount: request.amount,
        senderName: request.senderName ?? null,
      });
      await deps.sandbox.creditCollections.execute(request.collectionId);
      const collection = await deps.sandbox.getCollection.execute({
        partnerId: request.partnerId,
        collectionId: request.collectionId,
      });
      return {
        deposit: toProtoDeposit(result.deposit),
        collection: toProtoCollection(collection, deps.rails),
        created: result.created,
      };
    },
    async expireNow(request) {
      if (!deps.sandbox) throw new AppError('NOT_FOUND');
      await deps.sandbox.getCollection.execute(request);
      await deps.sandbox.expireCollections.endLifetimeNow(request.collectionId);
      await deps.sandbox.expireCollections.execute();
      return toProtoCollection(await deps.sandbox.getCollection.execute(request), deps.rails);
    },
  };
}
