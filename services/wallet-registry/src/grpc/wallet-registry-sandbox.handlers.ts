import { AppError } from '@platform/errors';
import type { AsyncImplementation } from '@platform/grpc';
import { walletRegistry } from '@platform/proto';
import type { ReviewWalletUseCase } from '../usecases/review-wallet/review-wallet.usecase';
import { toProtoWallet } from './presenters';

/**
 * Translates gRPC messages to commands; no decisions here. Outside sandbox
 * mode there is no use case and every call answers NOT_FOUND, as an absent
 * route would.
 */
export function walletRegistrySandboxHandlers(deps: {
  reviewWallet: ReviewWalletUseCase | null;
}): AsyncImplementation<typeof walletRegistry.WalletRegistrySandboxService> {
  return {
    async approveWallet(request) {
      if (!deps.reviewWallet) throw new AppError('NOT_FOUND');
      return toProtoWallet(await deps.reviewWallet.execute({ ...request, decision: 'approve' }));
    },
  };
}
