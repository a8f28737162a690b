import { validationFailed } from '@platform/errors';
import type { AsyncImplementation } from '@platform/grpc';
import { walletRegistry } from '@platform/proto';
import type { ConfigurePartnerUseCase } from '../usecases/configure-partner/configure-partner.usecase';

/** Translates gRPC messages to commands; no decisions here. */
export function walletRegistryAdminHandlers(deps: {
  configurePartner: ConfigurePartnerUseCase;
}): AsyncImplementation<typeof walletRegistry.WalletRegistryAdminService> {
  return {
    async configurePartner(request) {
      if (!request.settings) throw validationFailed(['settings']);
      return deps.configurePartner.execute(request.settings);
    },
  };
}
