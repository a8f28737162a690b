import { validationFailed } from '@platform/errors';
import type { AsyncImplementation } from '@platform/grpc';
import { trading } from '@platform/proto';
import type { ConfigurePartnerUseCase } from '../usecases/configure-partner/configure-partner.usecase';

/** Translates gRPC messages to commands and views back; no decisions here. */
export function tradingAdminHandlers(deps: {
  configurePartner: ConfigurePartnerUseCase;
}): AsyncImplementation<typeof trading.TradingAdminService> {
  return {
    async configurePartner(request) {
      if (!request.profile) throw validationFailed(['profile']);
      const profile = await deps.configurePartner.execute(request.profile);
      return { ...profile, feeCapKes: profile.feeCapKes ?? undefined };
    },
  };
}
