import type { AsyncImplementation } from '@platform/grpc';
import type { trading } from '@platform/proto';
import type { ClaimDueSellProceedsUseCase } from '../usecases/claim-due-sell-proceeds/claim-due-sell-proceeds.usecase';
import type { RecordSellProceedsOutcomeUseCase } from '../usecases/record-sell-proceeds-outcome/record-sell-proceeds-outcome.usecase';

/** TradingSellProceeds: sell orders' proceeds, claimed and reported by payouts. Translation only. */
export function tradingSellProceedsHandlers(deps: {
  claimDueSellProceeds: ClaimDueSellProceedsUseCase;
  recordSellProceedsOutcome: RecordSellProceedsOutcomeUseCase;
}): AsyncImplementation<typeof trading.TradingSellProceedsService> {
  return {
    async claimDueSellProceeds(request) {
      return { proceeds: await deps.claimDueSellProceeds.execute({ limit: request.limit }) };
    },
    async recordSellProceedsOutcome(request) {
      return deps.recordSellProceedsOutcome.execute(request);
    },
  };
}
