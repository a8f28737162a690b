import { validationFailed } from '@platform/errors';
import type { AsyncImplementation } from '@platform/grpc';
import type { ListAuditRecordsUseCase } from '@platform/persistence';
import { walletRegistry } from '@platform/proto';
import type { ConfigurePartnerUseCase } from '../usecases/configure-partner/configure-partner.usecase';
import type { ReviewWalletUseCase } from '../usecases/review-wallet/review-wallet.usecase';
import { toProtoWallet } from './presenters';

/** Translates gRPC messages to commands; no decisions here. */
export function walletRegistryAdminHandlers(deps: {
  configurePartner: ConfigurePartnerUseCase;
  reviewWallet: ReviewWalletUseCase;
  listAuditRecords: ListAuditRecordsUseCase;
}): AsyncImplementation<typeof walletRegistry.WalletRegistryAdminService> {
  return {
    async configurePartner(request) {
      if (!request.settings) throw validationFailed(['settings']);
      return deps.configurePartner.execute(request.settings);
    },
    async reviewWallet(request) {
      return toProtoWallet(await deps.reviewWallet.execute(request));
    },
    listAuditRecords: (request) => deps.listAuditRecords.execute(request),
  };
}
