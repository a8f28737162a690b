import { AppError } from '@platform/errors';
import type { AsyncImplementation } from '@platform/grpc';
import { trading } from '@platform/proto';
import type { SetSandboxRateUseCase } from '../usecases/set-sandbox-rate/set-sandbox-rate.usecase';

/**
 * Translates gRPC messages to commands; no decisions here. Without the sandbox
 * feed (production, or RATE_FEED=http) there is no use case and every call
 * answers NOT_FOUND, as an absent route would.
 */
export function tradingSandboxHandlers(deps: {
  setSandboxRate: SetSandboxRateUseCase | null;
}): AsyncImplementation<typeof trading.TradingSandboxService> {
  return {
    async setSandboxRate(request) {
      if (!deps.setSandboxRate) throw new AppError('NOT_FOUND');
      return deps.setSandboxRate.execute(request);
    },
  };
}
