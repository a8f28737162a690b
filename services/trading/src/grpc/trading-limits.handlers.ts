import type { AsyncImplementation } from '@platform/grpc';
import type { trading } from '@platform/proto';
import type { GetPartnerLimitsUseCase } from '../usecases/get-partner-limits/get-partner-limits.usecase';
import type { ReleaseDailyCapUseCase } from '../usecases/release-daily-cap/release-daily-cap.usecase';
import type { CapUsageView, ReserveDailyCapUseCase } from '../usecases/reserve-daily-cap/reserve-daily-cap.usecase';

function toUsage(view: CapUsageView): trading.DailyCapUsage {
  return { ...view, releasedAt: view.releasedAt ?? undefined };
}

/** TradingLimits: the shared daily cap, for orders here and for payouts. Translation only. */
export function tradingLimitsHandlers(deps: {
  reserveDailyCap: ReserveDailyCapUseCase;
  releaseDailyCap: ReleaseDailyCapUseCase;
  getPartnerLimits: GetPartnerLimitsUseCase;
}): AsyncImplementation<typeof trading.TradingLimitsService> {
  return {
    async reserveDailyCap(request) {
      return toUsage(await deps.reserveDailyCap.execute(request));
    },
    async releaseDailyCap(request) {
      const result = await deps.releaseDailyCap.execute(request);
      return { found: result.found, usage: result.usage ? toUsage(result.usage) : undefined };
    },
    async getPartnerLimits(request) {
      return deps.getPartnerLimits.execute(request);
    },
  };
}
