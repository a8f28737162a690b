import type { AsyncImplementation } from '@platform/grpc';
import { trading } from '@platform/proto';
import type { CreateQuoteUseCase } from '../usecases/create-quote/create-quote.usecase';

/** Translates gRPC messages to commands and views back; no decisions here. */
export function tradingHandlers(deps: {
  createQuote: CreateQuoteUseCase;
}): AsyncImplementation<typeof trading.TradingService> {
  return {
    async createQuote(request) {
      const quote = await deps.createQuote.execute({
        partnerId: request.partnerId,
        side: request.side,
        kesAmount: request.kesAmount,
        usdtAmount: request.usdtAmount,
      });
      return { ...quote, fee: { ...quote.fee, capKesAmount: quote.fee.capKesAmount ?? undefined } };
    },
  };
}
