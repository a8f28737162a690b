import { AppError } from '@platform/errors';
import type { AsyncImplementation } from '@platform/grpc';
import { collections } from '@platform/proto';
import type { UsdRails } from '../adapters/usd-rails.adapter';
import type { ExpireCollectionNowUseCase } from '../usecases/expire-collection-now/expire-collection-now.usecase';
import type { SimulateDepositUseCase } from '../usecases/simulate-deposit/simulate-deposit.usecase';
import { toProtoCollection, toProtoDeposit } from './presenters';

/**
 * Translates gRPC messages to commands; no decisions here. Outside sandbox
 * mode there are no use cases and every call answers NOT_FOUND, as an absent
 * route would.
 */
export function collectionsSandboxHandlers(deps: {
  simulateDeposit: SimulateDepositUseCase | null;
  expireCollectionNow: ExpireCollectionNowUseCase | null;
  rails: UsdRails;
}): AsyncImplementation<typeof collections.CollectionsSandboxService> {
  return {
    async simulateDeposit(request) {
      if (!deps.simulateDeposit) throw new AppError('NOT_FOUND');
      const result = await deps.simulateDeposit.execute({
        partnerId: request.partnerId,
        collectionId: request.collectionId,
        depositId: request.depositId,
        amount: request.amount,
        senderName: request.senderName ?? null,
      });
      return {
        deposit: toProtoDeposit(result.deposit),
        collection: toProtoCollection(result.collection, deps.rails),
        created: result.created,
      };
    },
    async expireNow(request) {
      if (!deps.expireCollectionNow) throw new AppError('NOT_FOUND');
      return toProtoCollection(await deps.expireCollectionNow.execute(request), deps.rails);
    },
  };
}
