import type { AsyncImplementation } from '@platform/grpc';
import type { trading } from '@platform/proto';
import type { OfferUsdtDepositUseCase } from '../usecases/offer-usdt-deposit/offer-usdt-deposit.usecase';

/** TradingDeposits: the ledger's offer of an inbound USDT deposit. Translation only. */
export function tradingDepositsHandlers(deps: {
  offerUsdtDeposit: OfferUsdtDepositUseCase;
}): AsyncImplementation<typeof trading.TradingDepositsService> {
  return {
    async offerUsdtDeposit(request) {
      const decision = await deps.offerUsdtDeposit.execute(request);
      if (decision.decision === 'matched') return { decision: 'matched', orderId: decision.orderId };
      if (decision.decision === 'hold') return { decision: 'hold', holdUntil: decision.holdUntil };
      return { decision: 'none' };
    },
  };
}
